// The D1 repositories that several callers share (the API, the outbox sweep, the shard's status
// flush, the dead-letter consumer): what each promises, against the real D1 schema.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import type { AlertRow } from "../../src/db/alerts";
import { applyShardJobStatuses, listUnsyncedJobs, markJobsSynced } from "../../src/db/job-outbox";
import { findJob, insertJobs, type StoredJob } from "../../src/db/jobs";
import { findWorkflowStep, listWorkflowSteps, recordWorkflowSteps } from "../../src/db/qstash-workflow-runs";
import {
  listWorkflowWaiters,
  restoreWaiter,
  takeWaiterForWakeUp,
  upsertWorkflowWaiter,
  type WorkflowWaiterRow,
} from "../../src/db/qstash-workflow-waiters";
import { findSigningSecrets, insertTenant } from "../../src/db/tenants";
import { alertResource, alertWebhookBody } from "../../src/service/alert-bodies";
import { seedAlert } from "../helpers/seed";

const NOW_MS = Date.parse("2026-12-01T00:00:00Z");
/** One job database: these tests are about the repository's SQL, not the routing. */
const JOBS_DB = env.DB_JOBS_0;
let sequence = 0;

async function newTenant(secretNext: string | null = null): Promise<string> {
  sequence += 1;
  const id = `ten_db${sequence}${crypto.randomUUID().slice(0, 8)}`;
  await insertTenant(env.DB, {
    id,
    name: id,
    signing_secret: `secret-${id}`,
    signing_secret_next: secretNext,
    alert_webhook_url: null,
    created_at_ms: NOW_MS,
  });
  return id;
}

async function newJob(tenantId: string, version: number, syncedVersion: number): Promise<StoredJob> {
  sequence += 1;
  const job: StoredJob = {
    id: `job_db${sequence}${crypto.randomUUID().slice(0, 8)}`,
    tenantId,
    spec: jobCreateSchema.parse({
      name: `job-${sequence}`,
      schedule: { type: "cron", expr: "*/5 * * * *", timezone: "UTC" },
      target: { url: "https://example.com/hook" },
    }),
    status: "ACTIVE",
    version,
    shard: 0,
    syncedVersion,
    idempotencyKey: null,
    requestHash: null,
    createdAtMs: NOW_MS,
    updatedAtMs: NOW_MS,
    endsAtMs: null,
  };
  await insertJobs(JOBS_DB, [job]);
  return job;
}

async function syncedVersionOf(job: StoredJob): Promise<number | undefined> {
  return (await findJob(JOBS_DB, job.tenantId, job.id))?.syncedVersion;
}

describe("markJobsSynced", () => {
  it("marks only the confirmed version, so an edit written meanwhile stays in the outbox", async () => {
    const job = await newJob(await newTenant(), 2, 0);
    await markJobsSynced(JOBS_DB, [{ id: job.id, version: 1 }]);
    expect(await syncedVersionOf(job)).toBe(1);
    expect((await listUnsyncedJobs(JOBS_DB, 500)).map((row) => row.id)).toContain(job.id);

    await markJobsSynced(JOBS_DB, [{ id: job.id, version: 2 }]);
    expect(await syncedVersionOf(job)).toBe(2);
    expect((await listUnsyncedJobs(JOBS_DB, 500)).map((row) => row.id)).not.toContain(job.id);
  });

  it("never moves synced_version backwards and never past the stored version", async () => {
    const job = await newJob(await newTenant(), 3, 3);
    await markJobsSynced(JOBS_DB, [{ id: job.id, version: 2 }]);
    expect(await syncedVersionOf(job)).toBe(3);
    const behind = await newJob(job.tenantId, 1, 0);
    await markJobsSynced(JOBS_DB, [{ id: behind.id, version: 2 }]);
    expect(await syncedVersionOf(behind)).toBe(0);
  });
});

describe("applyShardJobStatuses", () => {
  it("writes a shard's COMPLETED or pause as synced, but never over a deletion or a newer edit", async () => {
    const tenantId = await newTenant();
    const completed = await newJob(tenantId, 1, 1);
    const paused = await newJob(tenantId, 1, 1);
    const edited = await newJob(tenantId, 4, 3);
    const deleted = await newJob(tenantId, 2, 2);
    await JOBS_DB.prepare("UPDATE jobs SET status = 'DELETED' WHERE id = ?").bind(deleted.id).run();
    await applyShardJobStatuses(
      JOBS_DB,
      [
        { id: completed.id, status: "COMPLETED", version: 1 },
        { id: paused.id, status: "PAUSED", version: 2 },
        { id: edited.id, status: "PAUSED", version: 2 },
        { id: deleted.id, status: "COMPLETED", version: 2 },
      ],
      NOW_MS + 1_000,
    );
    const read = async (job: StoredJob) => {
      const row = await findJob(JOBS_DB, tenantId, job.id);
      return [row?.status, row?.version, row?.syncedVersion];
    };
    expect(await read(completed)).toEqual(["COMPLETED", 1, 1]);
    expect(await read(paused)).toEqual(["PAUSED", 2, 2]);
    expect(await read(edited)).toEqual(["ACTIVE", 4, 3]);
    expect(await read(deleted)).toEqual(["DELETED", 2, 2]);
  });
});

describe("alerts and tenants", () => {
  it("sends in the webhook what the API lists, for its tenant, without where the alert stands", async () => {
    const tenantId = await newTenant();
    const id = await seedAlert({ tenantId, kind: "missed_run" });
    const row = await env.DB.prepare("SELECT * FROM alerts WHERE id = ?").bind(id).first<AlertRow>();
    if (row === null) throw new Error("seeded alert not found");
    const {
      state: _state,
      delivery: _delivery,
      delivered_at: _deliveredAt,
      delivery_error: _deliveryError,
      acknowledged_at: _acknowledgedAt,
      resolved_at: _resolvedAt,
      resolution: _resolution,
      ...listed
    } = alertResource(row);
    expect(alertWebhookBody(row)).toEqual({ ...listed, tenant_id: tenantId });
    expect(Object.keys(alertWebhookBody(row)).sort()).toEqual(
      ["id", "kind", "tenant_id", "job_id", "run_id", "message", "details", "created_at"].sort(),
    );
  });

  it("reads the current then the next signing secret of each tenant, and skips unknown ones", async () => {
    const rotating = await newTenant("next-secret");
    const plain = await newTenant();
    const secrets = await findSigningSecrets(env.DB, [rotating, plain, "ten_unknown"]);
    expect(secrets).toEqual(
      new Map([
        [rotating, [`secret-${rotating}`, "next-secret"]],
        [plain, [`secret-${plain}`]],
      ]),
    );
  });
});

describe("workflow waiters", () => {
  /** A run with its first step, waiting with its timeout's step listed after it. */
  async function waitingRun(): Promise<WorkflowWaiterRow> {
    const tenantId = await newTenant();
    const runId = `wfr_db${++sequence}`;
    const run = { tenantId, runId, url: "https://example.com/wf", settings: {} };
    const step = (messageId: string, callType: string) => ({
      tenantId,
      runId,
      messageId,
      callType,
      bodyBase64: "e30=",
    });
    await recordWorkflowSteps(
      env.DB,
      [run],
      [step("msg_init", "step"), step("msg_timeout", "wait-timeout")],
      NOW_MS,
    );
    const waiter: WorkflowWaiterRow = {
      tenant_id: tenantId,
      event_id: "evt",
      run_id: runId,
      url: "https://example.com/wf",
      headers: "{}",
      step: "{}",
      timeout_message_id: "msg_timeout",
      deadline_ms: NOW_MS + 60_000,
      created_at_ms: NOW_MS,
    };
    await upsertWorkflowWaiter(env.DB, waiter);
    return waiter;
  }
  const wakeUp = (messageId: string) => ({ messageId, callType: "step", bodyBase64: "d2FrZQ==" });
  const stepIds = async (waiter: WorkflowWaiterRow) =>
    (await listWorkflowSteps(env.DB, waiter.tenant_id, waiter.run_id)).map((step) => step.message_id);

  it("takes a waiter for one wake-up only, listing it in place of the timeout in one step", async () => {
    const waiter = await waitingRun();
    const [first, second] = await Promise.all([
      takeWaiterForWakeUp(env.DB, waiter, wakeUp("msg_wake_a"), NOW_MS),
      takeWaiterForWakeUp(env.DB, waiter, wakeUp("msg_wake_b"), NOW_MS),
    ]);
    expect([first, second].sort()).toEqual([false, true]);
    expect(await stepIds(waiter)).toEqual(["msg_init", first ? "msg_wake_a" : "msg_wake_b"]);
    expect(await listWorkflowWaiters(env.DB, waiter.tenant_id, "evt")).toEqual([]);
  });

  it("puts the waiter and its timeout back, in the run's order, when the wake-up could not be stored", async () => {
    const waiter = await waitingRun();
    const timeoutStep = await findWorkflowStep(env.DB, waiter.tenant_id, waiter.run_id, "msg_timeout");
    expect(await takeWaiterForWakeUp(env.DB, waiter, wakeUp("msg_wake"), NOW_MS)).toBe(true);
    await restoreWaiter(env.DB, waiter, timeoutStep, "msg_wake");
    expect(await stepIds(waiter)).toEqual(["msg_init", "msg_timeout"]);
    expect(await listWorkflowWaiters(env.DB, waiter.tenant_id, "evt")).toEqual([waiter]);
    expect(await takeWaiterForWakeUp(env.DB, waiter, wakeUp("msg_wake_again"), NOW_MS)).toBe(true);
  });
});
