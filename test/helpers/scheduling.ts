// Helpers for workers-pool tests that drive shards directly (below the HTTP API).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { inject } from "vitest";
import { HISTORY_COLUMNS } from "../../durable-objects/shard/history/legacy-records";
import type { ShardScheduler } from "../../durable-objects/shard/shard-scheduler";
import { withTestTables } from "../../durable-objects/shard/test-tables";
import type { Secrets } from "../../src/client/verify";
import { type JobCreate, type JobSpec, jobCreateSchema } from "../../src/core/jobs/job-spec";
import { runIdFor } from "../../src/core/runs/run-id";
import { attachCalendars } from "../../src/db/calendars";
import { injectFaults } from "../../src/service/fault-injection";
import { pushJobs, shardName, shardOfJob } from "../../src/shard/client";
import type { ShardJob } from "../../src/shard/protocol";
import type { ShardFaults } from "../../src/test-faults";
import { deliveryVerifies } from "./signature";

/** Deadline for waits on real queues, alarms and the target. */
export const WAIT = { timeout: 20_000, interval: 100 };

export const TENANT_ID = "ten_scheduling_tests";
export const SIGNING_SECRET = "a".repeat(64);

export async function seedTenant(tenantId = TENANT_ID, secret = SIGNING_SECRET): Promise<void> {
  await env.DB.prepare(
    "INSERT OR IGNORE INTO tenants (id, name, signing_secret, created_at_ms) VALUES (?, ?, ?, ?)",
  )
    .bind(tenantId, tenantId, secret, Date.now())
    .run();
}

let counter = 0;
export function uniqueJobId(label: string): string {
  counter += 1;
  return `job_${label}_${Date.now().toString(36)}_${counter}`;
}

/**
 * Job ids that all hash to one shard: `count` ids labelled `labels`, or one id per label of a list,
 * in its order. The shard is the first id's, drawn again while it is one of `avoiding` (a file
 * whose tests each want a shard of their own passes the shards its earlier tests used).
 */
export function jobIdsOnOneShard(
  labels: string | readonly string[],
  count = typeof labels === "string" ? 1 : labels.length,
  avoiding: ReadonlySet<number> = new Set(),
): string[] {
  const list = typeof labels === "string" ? Array.from({ length: count }, () => labels) : labels;
  const [firstLabel = "job", ...others] = list;
  let first = uniqueJobId(firstLabel);
  while (avoiding.has(shardOfJob(env, first))) first = uniqueJobId(firstLabel);
  const shard = shardOfJob(env, first);
  const ids = [first];
  for (const label of others) {
    let candidate = uniqueJobId(label);
    while (shardOfJob(env, candidate) !== shard) candidate = uniqueJobId(label);
    ids.push(candidate);
  }
  return ids;
}

export function targetUrl(path: string): string {
  return `${inject("targetUrl")}${path}`;
}

export function spec(overrides: Partial<JobCreate> & Pick<JobCreate, "schedule" | "target">): JobSpec {
  return jobCreateSchema.parse({ name: "test", ...overrides });
}

export function snapshot(
  jobId: string,
  jobSpec: JobSpec,
  version = 1,
  status: ShardJob["status"] = "ACTIVE",
): ShardJob {
  return {
    jobId,
    tenantId: TENANT_ID,
    shard: shardOfJob(env, jobId),
    version,
    status,
    specJson: JSON.stringify(jobSpec),
    createdAtMs: Date.now(),
  };
}

/** Puts the job on its shard with its calendars (as the API does after writing D1) and returns the shard. */
export async function placeJob(job: ShardJob): Promise<number> {
  const confirmed = await pushJobs(env, await attachCalendars(env.DB, [job]));
  if (!confirmed.has(job.jobId)) throw new Error(`shard did not confirm ${job.jobId}`);
  return job.shard;
}

/**
 * A shard's Durable Object, for tests that drive it below the client (runInDurableObject,
 * runDurableObjectAlarm, raw RPCs). The Worker itself reaches shards only through the client.
 */
export function shardStub(shard: number) {
  return env.SHARD_SCHEDULER.getByName(shardName(shard));
}

/** The stub of the shard a test job was placed on (tests place jobs where the id hashes). */
export function stubFor(jobId: string) {
  return shardStub(shardOfJob(env, jobId));
}

/** Sets (`{}`: clears) the injected faults of the job's shard. */
export async function setFaultsOf(jobId: string, faults: ShardFaults): Promise<void> {
  await injectFaults(env, shardOfJob(env, jobId), faults);
}

/**
 * Makes a job due right now. An alarm already set stays as it is; with none, one is set a minute
 * out: either way runDurableObjectAlarm runs the pass now, deterministically.
 */
export async function makeJobDue(jobId: string, atMs = Date.now()): Promise<void> {
  await runInDurableObject(stubFor(jobId), async (instance: ShardScheduler, objectState) => {
    const job = instance.state.jobs.get(jobId);
    if (job === undefined) throw new Error(`no job ${jobId} on its shard`);
    job.next_fire_ms = atMs;
    job.next_scheduled_ms = atMs;
    job.ahead_fire_ms = null;
    instance.state.touchJob(job);
    instance.state.commit();
    if ((await objectState.storage.getAlarm()) === null)
      await objectState.storage.setAlarm(Date.now() + 60_000);
  });
}

/**
 * Reads a shard with SQL, its state laid out as the tables of schema v23 held it (runs, the jobs'
 * timing columns, run_history): durable-objects/shard/test-tables.ts.
 */
export async function shardRows<T>(
  jobId: string,
  query: string,
  ...bindings: (string | number | null)[]
): Promise<T[]> {
  return shardRowsOf<T>(stubFor(jobId), query, ...bindings);
}

export async function shardRowsOf<T>(
  stub: DurableObjectStub<ShardScheduler>,
  query: string,
  ...bindings: (string | number | null)[]
): Promise<T[]> {
  return runInDurableObject(stub, (instance: ShardScheduler) =>
    withTestTables(instance.state, (sql) => sql.exec(query, ...bindings).toArray() as T[]),
  );
}

/**
 * A job's runs as they stand, oldest instant first: the live row of a run still on the wheel, else
 * the history record of one that settled and left `runs` (durable-objects/shard/runs/settle.ts).
 * `columns` are read from either; one a record lacks reads null there, and `run_id` is derived.
 */
export async function currentRunsOf<T>(jobId: string, columns: readonly string[]): Promise<T[]> {
  const recorded = new Set<string>(HISTORY_COLUMNS);
  const historyColumns = columns.map((column) =>
    column === "run_id" ? "NULL AS run_id" : recorded.has(column) ? column : `NULL AS ${column}`,
  );
  return runInDurableObject(stubFor(jobId), (instance: ShardScheduler) =>
    withTestTables(instance.state, (sql) => {
      const read = (select: string, table: string) =>
        sql
          .exec<Record<string, SqlStorageValue>>(
            `SELECT ${select}, scheduled_at_ms AS at_ms FROM ${table} WHERE job_id = ?`,
            jobId,
          )
          .toArray();
      const live = read(columns.join(", "), "runs");
      const liveAt = new Set(live.map((row) => row.at_ms));
      const settled = read(historyColumns.join(", "), "run_history")
        .filter((row) => !liveAt.has(row.at_ms))
        .map(
          (row): Record<string, SqlStorageValue> => ({
            ...row,
            run_id: runIdFor(jobId, row.at_ms as number),
          }),
        );
      return [...live, ...settled]
        .sort((a, b) => (a.at_ms as number) - (b.at_ms as number))
        .map(({ at_ms: _at, ...row }) =>
          Object.fromEntries(Object.entries(row).filter(([key]) => columns.includes(key))),
        ) as T[];
    }),
  );
}

export interface TargetCall {
  method: string;
  path: string;
  /** Path and query as received. */
  url: string;
  headers: Record<string, string>;
  body: string;
  receivedAtMs: number;
}

export async function targetCalls(prefix: string): Promise<TargetCall[]> {
  const res = await fetch(`${inject("targetUrl")}/__calls?prefix=${encodeURIComponent(prefix)}`);
  return res.json<TargetCall[]>();
}

/** Whether a receiver holding `secrets` accepts the call the target recorded (client verifySignature). */
export function targetCallVerifies(call: TargetCall, secrets: Secrets): Promise<boolean> {
  return deliveryVerifies({ ...call, url: targetUrl(call.url) }, secrets);
}

export interface HistoryRow {
  id: string;
  state: string;
  attempt: number;
  events_json: string;
  target_status: number | null;
  error: string | null;
  fence: number | null;
  job_version: number;
}

/** The job's run history as its shard recorded it, oldest instant first. */
export async function historyOf(jobId: string): Promise<HistoryRow[]> {
  const rows = await shardRows<Omit<HistoryRow, "id"> & { job_id: string; scheduled_at_ms: number }>(
    jobId,
    "SELECT * FROM run_history WHERE job_id = ? ORDER BY scheduled_at_ms",
    jobId,
  );
  return rows.map((row) => ({ ...row, id: runIdFor(row.job_id, row.scheduled_at_ms) }));
}

export function statesOf(row: HistoryRow): string[] {
  return (JSON.parse(row.events_json) as { state: string }[]).map((event) => event.state);
}

/**
 * Makes the jobs (all on one shard) due and runs one tick whose sends the queue "loses": their
 * runs end DISPATCHED with no message anywhere, as after a queue outage.
 */
export async function dispatchButLose(jobIds: string[]): Promise<void> {
  const first = jobIds[0] as string;
  await setFaultsOf(first, { dropDispatches: true });
  for (const jobId of jobIds) await makeJobDue(jobId);
  await runDurableObjectAlarm(stubFor(first));
  await setFaultsOf(first, {});
}
