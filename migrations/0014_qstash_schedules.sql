-- QStash schedules (/v2/schedules) are cron jobs whose spec carries `qstash.schedule_id`: the id
-- the client names them by. One live job per (tenant, schedule id): the unique index makes an
-- upsert race end with one job (the loser updates it), and a deleted job frees its id.
CREATE UNIQUE INDEX jobs_qstash_schedule
  ON jobs(tenant_id, json_extract(spec_json, '$.qstash.schedule_id'))
  WHERE json_extract(spec_json, '$.qstash.schedule_id') IS NOT NULL AND status <> 'DELETED';
