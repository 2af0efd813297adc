// Large-bodied jobs and jammed shards for the dead-letter limit tests
// (test/integration/dead-letter-limits.test.ts): placed in D1 and on their shard as the API does.

import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { JobSpec } from "../../src/core/jobs/job-spec";
import { runIdFor } from "../../src/core/runs/run-id";
import { jobStores } from "../../src/db/databases";
import type { DeadLetterRow } from "../../src/db/dead-letters";
import { insertStoredJobs } from "../../src/db/job-store";
import { MAX_STORED_PAYLOAD_BYTES, type StoredPayload } from "../../src/delivery/dead-letter-payload";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import { inShardTables } from "../helpers/shard-state";
import { jobIdsOnOneShard, shardRows, snapshot, spec, stubFor, targetUrl } from "./scheduling";

export const LONG_WAIT = { timeout: 90_000, interval: 250 };
export const FAR_FUTURE = { type: "once" as const, at: "2099-01-01T00:00:00.000Z" };

export interface LargeJob {
  jobId: string;
  jobSpec: JobSpec;
  body: string;
  headers: Record<string, string>;
}

/** Shards already used by a test in this file: each test gets its own, so no other alarm sends its letters. */
const usedShards = new Set<number>();

/** `count` job ids on one shard no earlier test of the file used. */
export function jobIdsOnAnUnusedShard(label: string, count: number): string[] {
  const ids = jobIdsOnOneShard(label, count, usedShards);
  usedShards.add(shardOfJob(env, ids[0] as string));
  return ids;
}

/**
 * A job with a 90-99 KB body and 12 KB of headers that fails permanently (404). Even ones carry
 * plain text (the letter fits one message); odd ones quotes, which JSON doubles past the message
 * limit (the letter goes by reference).
 */
export function largeJob(jobId: string, index: number, schedule: JobSpec["schedule"]): LargeJob {
  const body = (index % 2 === 0 ? "x" : '"').repeat(90_000 + (index % 10) * 1_000);
  const headers = Object.fromEntries([0, 1, 2].map((n) => [`x-large-${n}`, String(n).repeat(4_000)]));
  const jobSpec = spec({
    schedule,
    target: { url: targetUrl(`/status/404/dl-limits/${jobId}`), method: "POST", body },
    on_failure: targetUrl(`/ok/dl-on-failure/${jobId}`),
  });
  // Set after validation: headers a shard may already hold, whatever creation allows today.
  if (jobSpec.target.type === "http") jobSpec.target.headers = headers;
  return { jobId, jobSpec, body, headers };
}

/**
 * Writes the jobs to D1 in one insert and to their shard in one push, as an outbox sweep does: a
 * single statement for many such specs was too big for D1 and for the shard's SQLite, so this
 * also proves both split their statements.
 */
export async function placeLargeJobs(tenantId: string, jobs: LargeJob[]): Promise<void> {
  const nowMs = Date.now();
  await insertStoredJobs(
    jobStores(env),
    jobs.map((job) => ({
      id: job.jobId,
      tenantId,
      spec: job.jobSpec,
      status: "ACTIVE" as const,
      version: 1,
      shard: shardOfJob(env, job.jobId),
      syncedVersion: 1,
      idempotencyKey: null,
      requestHash: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      endsAtMs: null,
    })),
  );
  const confirmed = await pushJobs(
    env,
    jobs.map((job) => ({ ...snapshot(job.jobId, job.jobSpec), tenantId })),
  );
  expect(confirmed.size).toBe(jobs.length);
}

/** Leaves each job's run DEAD_LETTERED with its letter pending: what a jammed shard holds. */
export async function seedPendingLetters(tenantId: string, jobs: LargeJob[]): Promise<void> {
  await inShardTables(stubFor(jobs[0]!.jobId), (sql, _storage) => {
    const nowMs = Date.now();
    for (const job of jobs) {
      sql.exec(
        `INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
           max_attempts, fence, job_version, events_json, created_at_ms, updated_at_ms, dirty, target_status,
           error, dlq_pending, dlq_reason)
         VALUES (?, ?, ?, 'schedule', ?, ?, 'DEAD_LETTERED', 3, 3, 7, 1, '[]', ?, ?, 0, 503, 'HTTP 503', 1, 'exhausted')`,
        runIdFor(job.jobId, nowMs - 60_000),
        job.jobId,
        tenantId,
        nowMs - 60_000,
        nowMs - 60_000,
        nowMs,
        nowMs,
      );
    }
  });
}

export async function deadLettersOf(tenantId: string): Promise<DeadLetterRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM dead_letters WHERE tenant_id = ? ORDER BY job_id")
    .bind(tenantId)
    .all<DeadLetterRow>();
  return results;
}

/** Every letter stored whole but for its body: the first bytes, flagged, within the limit. */
export function expectBoundedPayloads(letters: DeadLetterRow[], jobs: LargeJob[]): void {
  const byJob = new Map(jobs.map((job) => [job.jobId, job]));
  for (const letter of letters) {
    const job = byJob.get(letter.job_id)!;
    expect(new TextEncoder().encode(letter.payload_json).byteLength).toBeLessThanOrEqual(
      MAX_STORED_PAYLOAD_BYTES,
    );
    const payload = JSON.parse(letter.payload_json) as StoredPayload;
    expect(payload).toMatchObject({
      method: "POST",
      url: job.jobSpec.target.type === "http" ? job.jobSpec.target.url : "",
      headers: job.headers,
      body_truncated: true,
      body_bytes: job.body.length,
    });
    expect(job.body.startsWith(payload.body as string)).toBe(true);
    expect((payload.body as string).length).toBeGreaterThan(20_000);
  }
}

export async function pendingLetters(jobId: string): Promise<number> {
  const [row] = await shardRows<{ n: number }>(jobId, "SELECT COUNT(*) AS n FROM runs WHERE dlq_pending = 1");
  return row?.n ?? -1;
}

/** Deletes the jobs on their shard (version 2), so the test leaves no timer and no alarm behind. */
export async function deleteLargeJobs(tenantId: string, jobs: LargeJob[]): Promise<void> {
  for (const job of jobs) {
    await pushJobs(env, [{ ...snapshot(job.jobId, job.jobSpec, 2, "DELETED"), tenantId }]);
  }
}
