// What status a job reads as, in code and in SQL: an ACTIVE job past its end (src/core/jobs/job-end.ts)
// reads COMPLETED before its shard writes so.
import type { JobStatus } from "../core/runs/run-state";

/** What a job reads as: ACTIVE past its end (src/core/jobs/job-end.ts) is COMPLETED. */
export function readStatus(status: JobStatus, endsAtMs: number | null, nowMs: number): JobStatus {
  return status === "ACTIVE" && endsAtMs !== null && endsAtMs <= nowMs ? "COMPLETED" : status;
}

/** readStatus in SQL, `?now` being the bound parameter of the current time. */
export function readStatusSql(nowParameter: string): string {
  return `(CASE WHEN status = 'ACTIVE' AND ends_at_ms <= ${nowParameter} THEN 'COMPLETED' ELSE status END)`;
}

/**
 * Jobs that read as `status` (readStatus), with the index on (tenant_id, status) still usable: an
 * ACTIVE job past its end reads COMPLETED.
 */
export function statusFilterSql(status: JobStatus): string {
  if (status === "ACTIVE") return "status = 'ACTIVE' AND (ends_at_ms IS NULL OR ends_at_ms > ?)";
  if (status === "COMPLETED") return "(status = 'COMPLETED' OR (status = 'ACTIVE' AND ends_at_ms <= ?))";
  return "status = ?";
}

export function statusFilterValues(status: JobStatus, nowMs: number): (string | number)[] {
  return status === "ACTIVE" || status === "COMPLETED" ? [nowMs] : [status];
}
