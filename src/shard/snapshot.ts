import type { JobStatus, ShardJob } from "./protocol";

/** The D1 columns a shard snapshot is built from. */
export interface JobSnapshotRow {
  id: string;
  tenant_id: string;
  shard: number;
  version: number;
  status: JobStatus;
  spec_json: string;
  created_at_ms: number;
}

export function jobRowToSnapshot(row: JobSnapshotRow): ShardJob {
  return {
    jobId: row.id,
    tenantId: row.tenant_id,
    shard: row.shard,
    version: row.version,
    status: row.status,
    specJson: row.spec_json,
    createdAtMs: row.created_at_ms,
  };
}

/** Records in D1 that shards hold these versions (only if the row was not edited meanwhile). */
export async function markSynced(db: D1Database, jobs: { jobId: string; version: number }[]): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .prepare(
      `UPDATE jobs SET synced_version = version
       WHERE synced_version < version AND EXISTS (
         SELECT 1 FROM json_each(?1) AS j
         WHERE json_extract(j.value, '$.jobId') = jobs.id AND json_extract(j.value, '$.version') = jobs.version)`,
    )
    .bind(JSON.stringify(jobs))
    .run();
}
