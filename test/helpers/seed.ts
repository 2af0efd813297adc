import { env } from "cloudflare:test";
import { createdRun, type Run } from "../../durable-objects/shard/records/run";
import { runIdFor } from "../../src/core/runs/run-id";
import { shardName, shardOfJob } from "../../src/shard/client";
import { withShardState } from "../helpers/shard-state";
import { jobsDb } from "./job-databases";

let sequence = 0;
function nextId(prefix: string): string {
  sequence += 1;
  return `${prefix}_seed${String(sequence).padStart(8, "0")}${crypto.randomUUID().slice(0, 8)}`;
}

export interface SeedRun {
  jobId: string;
  tenantId: string;
  state?: string;
  kind?: string;
  /** null: never dispatched. */
  fence?: number | null;
  scheduledAtMs?: number;
  createdAtMs?: number;
  latenessMs?: number | null;
  events?: Record<string, unknown>[];
  attempt?: number;
  maxAttempts?: number;
  targetStatus?: number | null;
  error?: string | null;
  acceptedAtMs?: number | null;
  heartbeatAtMs?: number | null;
  result?: unknown;
}

/** The shard a job's runs live on: its stored shard, or where it would be placed. */
async function shardOfSeededJob(jobId: string): Promise<number> {
  const row = await jobsDb(jobId)
    .prepare("SELECT shard FROM jobs WHERE id = ?")
    .bind(jobId)
    .first<{ shard: number }>();
  return row?.shard ?? shardOfJob(env, jobId);
}

/**
 * Writes a run's history record into its job's shard, as the shard records a settled run (into a
 * history page); returns the run id. Seeded instants are distinct (one run per job and instant).
 */
export async function seedRun(run: SeedRun): Promise<string> {
  sequence += 1;
  const scheduledAtMs = run.scheduledAtMs ?? Date.now() + sequence;
  const createdAtMs = run.createdAtMs ?? Date.now();
  const events = run.events ?? [{ state: "SCHEDULED", at_ms: scheduledAtMs, reason: "due", attempt: 1 }];
  const stub = env.SHARD_SCHEDULER.getByName(shardName(await shardOfSeededJob(run.jobId)));
  await withShardState(stub, (state) => {
    const seeded: Run = {
      ...createdRun({
        jobId: run.jobId,
        tenantId: run.tenantId,
        kind: (run.kind ?? "schedule") as Run["kind"],
        scheduledAtMs,
        fireAtMs: scheduledAtMs,
        maxAttempts: run.maxAttempts ?? 3,
        jobVersion: 1,
        state: "SCHEDULED",
        dueAtMs: null,
        waiting: null,
        reason: "due",
        nowMs: createdAtMs,
      }),
      state: (run.state ?? "SUCCEEDED") as Run["state"],
      attempt: run.attempt ?? 1,
      fence: run.fence === undefined ? 7 : run.fence,
      target_status: run.targetStatus === undefined ? 200 : run.targetStatus,
      error: run.error ?? null,
      lateness_ms: run.latenessMs === undefined ? 12 : run.latenessMs,
      duration_ms: 40,
      accepted_at_ms: run.acceptedAtMs ?? null,
      heartbeat_at_ms: run.heartbeatAtMs ?? null,
      result_json: run.result === undefined ? null : JSON.stringify(run.result),
      events: events as unknown as Run["events"],
    };
    // A record of a run still live here (an older state of it): the live run stays as it is.
    const live = state.runs.get(seeded.run_id);
    state.addRun(seeded);
    state.settleRun(seeded);
    if (live !== undefined) state.addRun(live);
  });
  return runIdFor(run.jobId, scheduledAtMs);
}

export async function seedDeadLetter(letter: {
  tenantId: string;
  jobId: string;
  runId: string;
  createdAtMs?: number;
}): Promise<string> {
  const id = nextId("dl");
  await env.DB.prepare(
    `INSERT INTO dead_letters (id, tenant_id, job_id, run_id, attempt, scheduled_at_ms, reason, last_error,
       target_status, payload_json, created_at_ms, redriven_at_ms)
     VALUES (?, ?, ?, ?, 3, ?, 'exhausted', 'HTTP 500', 500, ?, ?, NULL)`,
  )
    .bind(
      id,
      letter.tenantId,
      letter.jobId,
      letter.runId,
      Date.parse("2026-12-01T00:00:00Z"),
      JSON.stringify({ method: "POST", url: "https://example.com/hook", headers: {}, body: { a: 1 } }),
      letter.createdAtMs ?? Date.now(),
    )
    .run();
  return id;
}

export async function seedAlert(alert: { tenantId: string; jobId?: string; kind?: string }): Promise<string> {
  const id = nextId("alert");
  await env.DB.prepare(
    `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
     VALUES (?, ?, ?, NULL, ?, ?, 'Job missed a run', ?, ?)`,
  )
    .bind(
      id,
      alert.tenantId,
      alert.jobId ?? null,
      alert.kind ?? "missed_run",
      id,
      JSON.stringify({ late_ms: 5 }),
      Date.now(),
    )
    .run();
  return id;
}
