-- The same column on the control database's own jobs table (a deployment from before the job
-- databases still reads it, and `npm run migrate:layout` copies its rows column for column).
ALTER TABLE jobs ADD COLUMN ends_at_ms INTEGER;
