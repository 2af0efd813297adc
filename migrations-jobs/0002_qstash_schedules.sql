-- QStash schedules (/v2/schedules) are cron jobs whose spec carries `qstash.schedule_id`: the id
-- the client names them by. A schedule's job lives in the job database its (tenant, schedule id)
-- hashes to (src/db/qstash-schedules.ts), so one live job per (tenant, schedule id) here means one
-- in all: the unique index makes an upsert race end with one job (the loser updates it), and a
-- deleted job frees its id.
CREATE UNIQUE INDEX jobs_qstash_schedule
  ON jobs(tenant_id, json_extract(spec_json, '$.qstash.schedule_id'))
  WHERE json_extract(spec_json, '$.qstash.schedule_id') IS NOT NULL AND status <> 'DELETED';
