// jobs.create for one job: the body checked with the tenant's calendars, admitted, built, stored
// with its idempotent replay, pushed. The /v1 door translates the request into a call and the
// result into its answer (201, Location, ETag, Idempotent-Replayed).

import { validationError } from "../../core/common/field-errors";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import { calendarSetsFor } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { findStoredJobByIdempotencyKey } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { newStoredJob } from "../job-writes";
import { type Idempotency, idempotencyConflict } from "./idempotency";
import { checkJobFor } from "./job-check";
import { storeNewJobs } from "./store-new-jobs";

export interface CreateJobInput {
  tenantId: string;
  /** The job body as the client sent it, not yet checked. */
  body: unknown;
  idempotency: Idempotency | null;
  nowMs: number;
}

export type CreateJobResult =
  | { replayed: false; job: StoredJob; calendars: ReadonlyMap<string, ExclusionSet> }
  /** The job the first request with this key stored, as it is now. */
  | { replayed: true; job: StoredJob };

/** Throws 400 naming every bad field, 409/429 on admission, 422 on a key used with another body. */
export async function createJob(env: Env, input: CreateJobInput): Promise<CreateJobResult> {
  const { tenantId, body, idempotency, nowMs } = input;
  if (idempotency !== null) {
    const replay = await replayOf(env, tenantId, idempotency);
    if (replay !== null) return replay;
  }
  const calendars = await calendarSetsFor(env.DB, tenantId, [body as { calendars?: string[] }]);
  const check = checkJobFor(env, tenantId, body, nowMs, { calendars });
  if (!check.ok) throw validationError(check.errors);
  const job = newStoredJob(env, tenantId, check.spec, nowMs, idempotency);
  const stored = await storeNewJobs(env, tenantId, [job], nowMs, {
    // Two concurrent creates with one key: the unique index lets exactly one in.
    onInsertRefused: async () => (idempotency === null ? null : await replayOf(env, tenantId, idempotency)),
  });
  if (!stored.stored) return stored.duplicate;
  return { replayed: false, job, calendars };
}

/** Same key + same body: the stored job again; same key + another body: 422. */
async function replayOf(
  env: Env,
  tenantId: string,
  idempotency: Idempotency,
): Promise<{ replayed: true; job: StoredJob } | null> {
  const existing = await findStoredJobByIdempotencyKey(jobStores(env), tenantId, idempotency.key);
  if (existing === null) return null;
  if (existing.requestHash !== idempotency.requestHash) throw idempotencyConflict();
  return { replayed: true, job: existing };
}
