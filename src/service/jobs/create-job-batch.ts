// jobs.create for many: each item checked on its own (one calendar read and one schedule-search
// allowance for the whole batch), the valid ones admitted together (over a limit the whole batch
// is refused, nothing stored), inserted together in one database and pushed with one call.
// Results keep the request's order. With a key, each stored job carries the key and its index,
// so a retry of the same body answers from what the first request stored and creates nothing; a
// retry of a request that stored nothing (every item refused) is simply processed again.
import { EdgecronError } from "../../core/common/errors";
import type { JobSpec } from "../../core/jobs/job-spec";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import { BATCH_SEARCH_UNITS } from "../../core/schedules/schedule-check";
import { calendarSetsFor } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { findStoredJobsByIdempotencyKeys } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { databaseForCreate, newStoredJob } from "../job-writes";
import { batchItemKey, type Idempotency, idempotencyConflict } from "./idempotency";
import { checkJobFor } from "./job-check";
import { storeNewJobs } from "./store-new-jobs";

export type BatchItemOutcome = { index: number; job: StoredJob } | { index: number; error: EdgecronError };

export interface CreateJobBatchInput {
  tenantId: string;
  /** The items as the client sent them, not yet checked. */
  items: readonly unknown[];
  idempotency: Idempotency | null;
  nowMs: number;
}

export interface CreateJobBatchResult {
  outcomes: BatchItemOutcome[];
  calendars: ReadonlyMap<string, ExclusionSet>;
  /** The first request's outcomes again (its jobs as they are now). */
  replayed: boolean;
  nowMs: number;
}

export async function createJobBatch(env: Env, input: CreateJobBatchInput): Promise<CreateJobBatchResult> {
  const { tenantId, items, idempotency, nowMs } = input;
  const calendars = await calendarSetsFor(env.DB, tenantId, items as { calendars?: string[] }[]);
  const checkItem = itemChecker(env, tenantId, nowMs, calendars);
  const databaseIndex = databaseForCreate(env, tenantId, idempotency?.key ?? null);
  const outcomes = items.map((body, index): BatchItemOutcome => {
    const checked = checkItem(body, index);
    if ("error" in checked) return checked;
    const itemIdempotency =
      idempotency === null
        ? null
        : { key: batchItemKey(idempotency.key, index), requestHash: idempotency.requestHash };
    return { index, job: newStoredJob(env, tenantId, checked.spec, nowMs, itemIdempotency, databaseIndex) };
  });
  const jobs = outcomes.flatMap((outcome) => ("job" in outcome ? [outcome.job] : []));
  const replay = () => (idempotency === null ? Promise.resolve(null) : replayOf(env, input, idempotency));
  // A replay creates nothing, so it is not admitted (or refused) as creates: answer it first.
  if (idempotency !== null && jobs.length > 0) {
    const replayed = await replay();
    if (replayed !== null) return replayed;
  }
  // The key was used before (a retry, or a concurrent twin): the unique index on the items' keys
  // refuses the whole insert, so nothing of this attempt is stored. Inserting first spares every
  // first attempt a lookup of its 1,000 keys.
  const stored = await storeNewJobs(env, tenantId, jobs, nowMs, { onInsertRefused: replay });
  if (!stored.stored) return stored.duplicate;
  return { outcomes, calendars, replayed: false, nowMs };
}

type ItemCheck = { spec: JobSpec } | { index: number; error: EdgecronError };

function itemChecker(
  env: Env,
  tenantId: string,
  nowMs: number,
  calendars: ReadonlyMap<string, ExclusionSet>,
): (body: unknown, index: number) => ItemCheck {
  const searchAllowance = { remainingUnits: BATCH_SEARCH_UNITS };
  return (body, index) => {
    const check = checkJobFor(env, tenantId, body, nowMs, {
      prefix: ["jobs", index],
      calendars,
      searchAllowance,
    });
    if (check.ok) return { spec: check.spec };
    const fields = [...new Set(check.errors.map((error) => error.path))].join(", ");
    return {
      index,
      error: new EdgecronError("validation_failed", `Job ${index} has invalid fields: ${fields}`, {
        errors: check.errors,
      }),
    };
  };
}

/**
 * The first request's answer again, from the jobs it stored: an item it stored is that job as it
 * is now; an item it refused is refused again (re-checked for the message; one that would pass
 * now is still not created: the replay creates nothing). Null when that request stored nothing.
 */
async function replayOf(
  env: Env,
  { tenantId, items }: CreateJobBatchInput,
  idempotency: Idempotency,
): Promise<CreateJobBatchResult | null> {
  const stored = await findStoredJobsByIdempotencyKeys(
    jobStores(env),
    tenantId,
    items.map((_, index) => batchItemKey(idempotency.key, index)),
  );
  if (stored.length === 0) return null;
  if (stored.some((job) => job.requestHash !== idempotency.requestHash)) throw idempotencyConflict();
  const byKey = new Map(stored.map((job) => [job.idempotencyKey, job]));
  const nowMs = Date.now();
  const calendars = await calendarSetsFor(env.DB, tenantId, items as { calendars?: string[] }[]);
  const checkItem = itemChecker(env, tenantId, nowMs, calendars);
  const outcomes = items.map((body, index): BatchItemOutcome => {
    const job = byKey.get(batchItemKey(idempotency.key, index));
    if (job !== undefined) return { index, job };
    const checked = checkItem(body, index);
    if ("error" in checked) return checked;
    return {
      index,
      error: new EdgecronError(
        "not_created_by_original_request",
        `Job ${index} was not created by the first request with this Idempotency-Key; send it without the key to create it`,
      ),
    };
  });
  return { outcomes, calendars, replayed: true, nowMs };
}
