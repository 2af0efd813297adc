// One Analytics Engine data point per dispatch and per outcome, so the Cloudflare dashboard shows
// triggers, failures and lateness in production. Locally the binding accepts writes and stores
// nothing queryable; GET /v1/stats reads D1 instead.
import type { TargetOutcome } from "../core/runs/outcome";

export interface DispatchPoint {
  tenantId: string;
  jobId: string;
  attempt: number;
  latenessMs: number;
}

export function recordDispatch(dataset: AnalyticsEngineDataset, point: DispatchPoint): void {
  dataset.writeDataPoint({
    indexes: [point.tenantId],
    blobs: ["dispatch", point.tenantId, point.jobId, ""],
    doubles: [point.latenessMs, point.attempt, 0],
  });
}

export function recordOutcome(
  dataset: AnalyticsEngineDataset,
  point: DispatchPoint & { outcome: TargetOutcome },
): void {
  dataset.writeDataPoint({
    indexes: [point.tenantId],
    blobs: ["outcome", point.tenantId, point.jobId, point.outcome.kind],
    doubles: [point.latenessMs, point.attempt, point.outcome.durationMs, point.outcome.status ?? 0],
  });
}
