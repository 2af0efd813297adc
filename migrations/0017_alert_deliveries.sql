-- Alert deliveries go through the side-delivery queue, one message per URL (the tenant's webhook,
-- the job's on_failure URL), each retried on its own. One row per URL says where that one stands;
-- the alert's `delivery` column is their summary: delivered once every row is, failed while any
-- is. `sent_at_ms` is when it was last handed to the queue: maintenance sends again a row that
-- no attempt has touched for a while (a local queue loses its messages on restart).
CREATE TABLE alert_deliveries (
  alert_id TEXT NOT NULL,
  target TEXT NOT NULL CHECK (target IN ('webhook', 'on_failure')),
  url TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  sent_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (alert_id, target)
);
CREATE INDEX alert_deliveries_unfinished ON alert_deliveries(updated_at_ms) WHERE state <> 'delivered';
