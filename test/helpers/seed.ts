import { env } from "cloudflare:test";

let sequence = 0;
function nextId(prefix: string): string {
  sequence += 1;
  return `${prefix}_seed${String(sequence).padStart(8, "0")}${crypto.randomUUID().slice(0, 8)}`;
}

export interface SeedRun {
  id?: string;
  jobId: string;
  tenantId: string;
  shard?: number;
  state?: string;
  scheduledAtMs?: number;
  createdAtMs?: number;
  latenessMs?: number | null;
  events?: Record<string, unknown>[];
}

/** Inserts a run row as a shard would write it; returns its id. */
export async function seedRun(run: SeedRun): Promise<string> {
  const id = run.id ?? nextId("run");
  const scheduledAtMs = run.scheduledAtMs ?? Date.now();
  const createdAtMs = run.createdAtMs ?? Date.now();
  const events = run.events ?? [{ state: "SCHEDULED", at_ms: scheduledAtMs, reason: "due", attempt: 1 }];
  await env.DB.prepare(
    `INSERT INTO runs (id, job_id, tenant_id, shard, kind, scheduled_at_ms, idempotency_key, state, attempt,
       max_attempts, fence, job_version, target_status, error, lateness_ms, duration_ms, next_attempt_at_ms,
       events_json, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, 'schedule', ?, ?, ?, 1, 3, 7, 1, 200, NULL, ?, 40, NULL, ?, ?, ?)`,
  )
    .bind(
      id,
      run.jobId,
      run.tenantId,
      run.shard ?? 0,
      scheduledAtMs,
      `${run.jobId}:${new Date(scheduledAtMs).toISOString()}`,
      run.state ?? "SUCCEEDED",
      run.latenessMs === undefined ? 12 : run.latenessMs,
      JSON.stringify(events),
      createdAtMs,
      createdAtMs,
    )
    .run();
  return id;
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
