// The large form of bulk control: a filter matching more than SYNC_BULK_MAX_JOBS jobs answers 202
// with an operation to read (GET /v1/jobs/bulk/{id}) and goes on after the answer, a chunk at a
// time, its progress written after each. A small match is done before the answer (200), as ever.
import {
  type BulkOperation,
  findBulkOperation,
  insertBulkOperation,
  updateBulkOperation,
} from "../../db/bulk-operations";
import type { StoredJob } from "../../db/jobs";
import { logEvent } from "../../log";
import type { PushOptions } from "../../service/job-writes";
import { applyBulkJobs, type BulkPlan, planBulk } from "./bulk-control";
import type { JobBulk } from "./job-bulk-schema";

/**
 * Up to this many jobs to change, the call answers when they are done (200), so a runaway tenant's
 * jobs are stopped when it answers; it was the most one call took before the 202 form.
 */
export const SYNC_BULK_MAX_JOBS = 5_000;
/** Jobs written and pushed per step of a background operation (one progress write each). */
const BULK_CHUNK_JOBS = 500;
/** A running operation not moved for this long was stopped with its worker: call again to finish. */
export const BULK_STALL_MS = 60_000;

export type BulkAnswer =
  | { status: 200; body: { matched: number; done: number } }
  | { status: 202; body: ReturnType<typeof bulkOperationResource> };

/** Applies the bulk call now when small, else starts it as an operation; see the module comment. */
export async function startBulk(
  env: Env,
  tenantId: string,
  body: JobBulk,
  nowMs: number,
  options: PushOptions,
): Promise<BulkAnswer> {
  const plan = await planBulk(env, tenantId, body, nowMs);
  const work = plan.toChange.length + plan.unconfirmed.length;
  if (work <= SYNC_BULK_MAX_JOBS) {
    const confirmedNow = await applyBulkJobs(env, plan.toChange, plan.unconfirmed, options);
    return { status: 200, body: { matched: plan.matched, done: plan.confirmedBefore + confirmedNow } };
  }
  const operation: BulkOperation = {
    id: `bop_${crypto.randomUUID().replaceAll("-", "")}`,
    tenantId,
    action: body.action,
    matched: plan.matched,
    done: plan.confirmedBefore,
    state: "running",
    error: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
  await insertBulkOperation(env.DB, operation);
  const running = runOperation(env, operation, plan, options);
  if (options.waitUntil) options.waitUntil(running);
  else await running;
  return { status: 202, body: bulkOperationResource(operation, nowMs) };
}

/** Writes and pushes the plan a chunk at a time, recording progress after each. Never throws. */
async function runOperation(env: Env, operation: BulkOperation, plan: BulkPlan, options: PushOptions) {
  const jobs: { job: StoredJob; change: boolean }[] = [
    ...plan.toChange.map((job) => ({ job, change: true })),
    ...plan.unconfirmed.map((job) => ({ job, change: false })),
  ];
  let done = plan.confirmedBefore;
  try {
    for (let i = 0; i < jobs.length; i += BULK_CHUNK_JOBS) {
      const chunk = jobs.slice(i, i + BULK_CHUNK_JOBS);
      done += await applyBulkJobs(
        env,
        chunk.filter((entry) => entry.change).map((entry) => entry.job),
        chunk.filter((entry) => !entry.change).map((entry) => entry.job),
        options,
      );
      const last = i + BULK_CHUNK_JOBS >= jobs.length;
      await updateBulkOperation(
        env.DB,
        operation.id,
        { done, state: last ? "succeeded" : "running" },
        Date.now(),
      );
    }
  } catch (error) {
    logEvent("api.bulk_failed", { operation_id: operation.id, error });
    const message = error instanceof Error ? error.message : String(error);
    await updateBulkOperation(
      env.DB,
      operation.id,
      { done, state: "failed", error: message },
      Date.now(),
    ).catch(() => undefined);
  }
}

/** The operation as the API shows it; a running one that stopped moving reads `interrupted`. */
export function bulkOperationResource(operation: BulkOperation, nowMs: number) {
  const stalled = operation.state === "running" && nowMs - operation.updatedAtMs > BULK_STALL_MS;
  return {
    id: operation.id,
    action: operation.action as JobBulk["action"],
    matched: operation.matched,
    done: operation.done,
    state: stalled ? ("interrupted" as const) : operation.state,
    error: operation.error,
    created_at: new Date(operation.createdAtMs).toISOString(),
    updated_at: new Date(operation.updatedAtMs).toISOString(),
    status_url: `/v1/jobs/bulk/${operation.id}`,
  };
}

/** The tenant's operation as shown, or null. */
export async function readBulkOperation(env: Env, tenantId: string, id: string, nowMs: number) {
  const operation = await findBulkOperation(env.DB, tenantId, id);
  return operation === null ? null : bulkOperationResource(operation, nowMs);
}
