// A shard whose dispatch is held back: its dispatch window filled with runs of the job's own
// tenant that no consumer will ever claim, so every run of that tenant that comes due waits
// SCHEDULED, as under the tenant's own flood (another tenant would still get its share).

import { env } from "cloudflare:test";
import { windowLimits } from "../../durable-objects/shard/dispatch/budget";
import { shardCount } from "../../src/shard/client";
import { inShardTables } from "../helpers/shard-state";
import { stubFor, TENANT_ID } from "./scheduling";

const FILLER_JOB_ID = "job_budget_filler";
const FILLER_LEASE_MS = 3_600_000;

/**
 * Fills the dispatch window of the job's shard (at its largest size) with DISPATCHED runs of the
 * tenant, of a job the shard does not hold (their lease an hour away, their history never written
 * to D1). Returns the release.
 */
export async function holdBudgetFull(jobId: string, tenantId = TENANT_ID): Promise<() => Promise<void>> {
  const stub = stubFor(jobId);
  const nowMs = Date.now();
  await inShardTables(stub, (sql, _storage) => {
    sql.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
         max_attempts, fence, job_version, due_at_ms, dispatch_count, events_json, created_at_ms,
         updated_at_ms, dirty)
       SELECT 'run_filler_' || ? || '_' || i, ?, ?, 'schedule', ? - i, ? - i, 'DISPATCHED', 1,
         1, 0, 1, ?, 1, '[]', ?, ?, 0 FROM n`,
      windowLimits(shardCount(env)).maxSize,
      nowMs,
      FILLER_JOB_ID,
      tenantId,
      nowMs,
      nowMs,
      nowMs + FILLER_LEASE_MS,
      nowMs,
      nowMs,
    );
  });
  return async () => {
    await inShardTables(stub, (sql, _storage) => {
      sql.exec("DELETE FROM runs WHERE job_id = ?", FILLER_JOB_ID);
    });
  };
}
