-- Long-running runs: when the target accepted the work (it reports back later), its last
-- heartbeat, and the small JSON result it reported with its completion (at most 4 KB).
ALTER TABLE runs ADD COLUMN accepted_at_ms INTEGER;
ALTER TABLE runs ADD COLUMN heartbeat_at_ms INTEGER;
ALTER TABLE runs ADD COLUMN result_json TEXT;
