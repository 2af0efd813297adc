-- When a job's schedule has no instant left, where its spec alone says so (src/core/job-end.ts):
-- an ACTIVE job reads COMPLETED once this has passed, without its shard writing the status back
-- (a D1 row and an index entry per one-shot run before). NULL: the shard writes COMPLETED when it
-- decides it, as for every job created before this column.
ALTER TABLE jobs ADD COLUMN ends_at_ms INTEGER;
