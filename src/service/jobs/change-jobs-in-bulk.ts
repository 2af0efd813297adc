// jobs.change in bulk: pause, resume or delete the tenant's jobs that match a filter, for the
// runaway case (./bulk-plan.ts). Up to SYNC_BULK_MAX_JOBS jobs to change, the call is done when it
// returns; a larger match becomes an operation that goes on after the answer, a chunk at a time,
// its progress written after each (read with readBulkOperation).
import {
  type BulkOperation,
  type BulkOperationState,
  findBulkOperation,
  insertBulkOperation,
  updateBulkOperation,
} from "../../db/bulk-operations";
import type { StoredJob } from "../../db/jobs";
import { logEvent } from "../../log";
import type { PushOptions } from "../job-writes";
import {
  applyBulkJobs,
  type BulkAction,
  type BulkChange,
  type BulkPlan,
  checkBulkScope,
  planBulk,
} from "./bulk-plan";

/**
 * Up to this many jobs to change, the call returns when they are done, so a runaway tenant's jobs
 * are stopped when it answers; it was the most one call took before the operation form.
 */
export const SYNC_BULK_MAX_JOBS = 5_000;
/** Jobs written and pushed per step of a background operation (one progress write each). */
const BULK_CHUNK_JOBS = 500;
/** A running operation not moved for this long was stopped with its worker: call again to finish. */
export const BULK_STALL_MS = 60_000;

/** A bulk operation as it stands; `interrupted`: it stopped moving (call again to finish it). */
export interface BulkOperationView {
  id: string;
  action: BulkAction;
  matched: number;
  done: number;
  state: BulkOperationState | "interrupted";
  error: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

export type BulkChangeResult =
  | { finished: true; matched: number; done: number }
  | { finished: false; operation: BulkOperationView };

/** Applies the bulk change now when small, else starts it as an operation; see the module comment. */
export async function changeJobsInBulk(
  env: Env,
  change: BulkChange,
  nowMs: number,
  options: PushOptions,
): Promise<BulkChangeResult> {
  checkBulkScope(change);
  const plan = await planBulk(env, change, nowMs);
  const work = plan.toChange.length + plan.unconfirmed.length;
  if (work <= SYNC_BULK_MAX_JOBS) {
    const confirmedNow = await applyBulkJobs(env, plan.toChange, plan.unconfirmed, options);
    return { finished: true, matched: plan.matched, done: plan.confirmedBefore + confirmedNow };
  }
  const operation: BulkOperation = {
    id: `bop_${crypto.randomUUID().replaceAll("-", "")}`,
    tenantId: change.tenantId,
    action: change.action,
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
  return { finished: false, operation: operationView(operation, nowMs) };
}

/** The tenant's operation as it stands, or null. */
export async function readBulkOperation(
  env: Env,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<BulkOperationView | null> {
  const operation = await findBulkOperation(env.DB, tenantId, id);
  return operation === null ? null : operationView(operation, nowMs);
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

function operationView(operation: BulkOperation, nowMs: number): BulkOperationView {
  const stalled = operation.state === "running" && nowMs - operation.updatedAtMs > BULK_STALL_MS;
  return {
    id: operation.id,
    action: operation.action as BulkAction,
    matched: operation.matched,
    done: operation.done,
    state: stalled ? "interrupted" : operation.state,
    error: operation.error,
    createdAtMs: operation.createdAtMs,
    updatedAtMs: operation.updatedAtMs,
  };
}
