-- Superseded: QStash schedule jobs live in the job databases, whose unique index on
-- (tenant_id, qstash.schedule_id) is migrations-jobs/0002_qstash_schedules.sql. This file stays
-- because a database may have applied its first form (that index on this database's legacy
-- `jobs` table, which no schedule is written to any more); it drops that index where it exists.
DROP INDEX IF EXISTS jobs_qstash_schedule;
