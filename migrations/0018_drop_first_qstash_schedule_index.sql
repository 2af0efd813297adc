-- The first form of 0014_qstash_schedules.sql created the unique index jobs_qstash_schedule on this
-- database's legacy `jobs` table; 0014 was later rewritten to drop it instead. A database that had
-- applied the first form never runs 0014 again, so only a migration under a new name reaches it:
-- this one. (0014's own comment says it drops the index "where it exists"; in fact it runs only
-- where the first form never ran, so it finds nothing.) Databases created since then have no such
-- index, and IF EXISTS makes this a no-op for them.
DROP INDEX IF EXISTS jobs_qstash_schedule;
