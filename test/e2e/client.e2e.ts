// The typed client against a real `wrangler dev`: every route of docs/API.md through
// EdgecronClient, and signed deliveries checked with verifySignatureParts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EdgecronClient,
  EdgecronProblemError,
  type JobCreate,
  verifySignatureParts,
} from "../../src/client/index";
import {
  ADMIN_TOKEN,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

const NEVER_SOON = { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" } as const;

describe("EdgecronClient against wrangler dev", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let admin: EdgecronClient;
  let tenantClient: EdgecronClient;
  let tenantId: string;
  let signingSecret: string;
  let apiKeyId: string;

  const job = (name: string, path = "/ok", extra: Partial<JobCreate> = {}): JobCreate => ({
    name,
    schedule: NEVER_SOON,
    target: { url: `${target.url}${path}`, method: "POST", body: { name } },
    ...extra,
  });

  beforeAll(async () => {
    [server, target] = await Promise.all([startScheduler(), startTarget()]);
    target.respond((call) => ({ status: call.path.startsWith("/dead") ? 404 : 200 }));
    admin = new EdgecronClient({ baseUrl: server.baseUrl, token: ADMIN_TOKEN });
    const tenant = await admin.tenants.create({ name: "client-e2e" });
    tenantId = tenant.id;
    signingSecret = tenant.signing_secret;
    const key = await admin.apiKeys.create({ tenant_id: tenant.id, name: "e2e" });
    apiKeyId = key.id;
    tenantClient = new EdgecronClient({ baseUrl: server.baseUrl, token: key.key });
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), target?.close()]);
    if (server) removeState(server.stateDir);
  });

  it("answers health, me, openapi and stats", async () => {
    expect(await admin.health()).toEqual({
      status: "ok",
      tzdata: expect.stringMatching(/^intl-[0-9a-f]{12}$/),
    });
    expect(await admin.me()).toEqual({ role: "admin", tenant_id: null });
    expect(await tenantClient.me()).toEqual({ role: "tenant", tenant_id: tenantId });
    expect(await admin.openapi()).toHaveProperty("openapi");
    const stats = await tenantClient.stats();
    expect(stats).toHaveProperty("jobs_by_status");
    expect(stats).toHaveProperty("lateness_ms");
  });

  it("previews a schedule", async () => {
    const { fire_times } = await tenantClient.previewSchedule({
      schedule: { type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin" },
      count: 3,
      from: "2026-12-01T00:00:00.000Z",
    });
    expect(fire_times).toEqual([
      "2026-12-01T08:00:00.000Z",
      "2026-12-02T08:00:00.000Z",
      "2026-12-03T08:00:00.000Z",
    ]);
  });

  it("creates, reads, edits, pauses, resumes and deletes a job", async () => {
    const created = await tenantClient.jobs.create(job("lifecycle"));
    expect(created).toMatchObject({ name: "lifecycle", status: "ACTIVE", version: 1 });
    expect(created.next_fire_times).toHaveLength(5);
    expect((await tenantClient.jobs.get(created.id, { next: 10 })).next_fire_times).toHaveLength(10);

    const edited = await tenantClient.jobs.update(created.id, { name: "lifecycle-2" }, { ifMatch: 1 });
    expect(edited).toMatchObject({ name: "lifecycle-2", version: 2 });
    const conflict = await tenantClient.jobs
      .update(created.id, { name: "x" }, { ifMatch: 1 })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(EdgecronProblemError);
    expect(conflict).toMatchObject({ status: 409, code: "version_conflict" });

    expect((await tenantClient.jobs.pause(created.id)).status).toBe("PAUSED");
    expect((await tenantClient.jobs.resume(created.id)).status).toBe("ACTIVE");
    expect((await tenantClient.jobs.delete(created.id)).status).toBe("DELETED");
  });

  it("replays a create with the same Idempotency-Key", async () => {
    const first = await tenantClient.jobs.create(job("idem"), { idempotencyKey: "client-e2e-1" });
    const again = await tenantClient.request<{ id: string }>({
      method: "POST",
      path: "/v1/jobs",
      body: job("idem"),
      idempotent: true,
      headers: { "idempotency-key": "client-e2e-1" },
    });
    expect(again.body.id).toBe(first.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("surfaces validation problems with every field path", async () => {
    const error = await tenantClient.jobs
      .create({
        name: "",
        schedule: { type: "cron", expr: "0 0 30 2 *", timezone: "Mars/Base" },
        target: { url: "ftp://x" },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EdgecronProblemError);
    const problem = error as EdgecronProblemError;
    expect(problem.status).toBe(400);
    const paths = problem.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "schedule.timezone", "target.url"]));
  });

  it("creates a batch with per-item results", async () => {
    const bad = { ...job("batch-bad"), schedule: { type: "interval" as const, every: "10ms" } };
    const result = await tenantClient.jobs.createBatch([job("batch-1"), job("batch-2"), bad, job("batch-3")]);
    expect(result).toMatchObject({ created: 3, failed: 1 });
    const failed = result.results.find((item) => item.index === 2);
    expect(failed?.status).toBe(400);
    expect(failed && "error" in failed ? failed.error.errors?.[0]?.path : undefined).toMatch(
      /schedule\.every/,
    );
  });

  it("pages through jobs with the async iterator", async () => {
    for (let i = 0; i < 5; i++) await tenantClient.jobs.create(job(`page-${i}`));
    const pages: number[] = [];
    for await (const page of tenantClient.jobs.pages({ name: "page-", limit: 2 }))
      pages.push(page.data.length);
    expect(pages).toEqual([2, 2, 1]);
    const names: string[] = [];
    for await (const item of tenantClient.jobs.all({ name: "page-", limit: 2 })) names.push(item.name);
    expect(names).toEqual(["page-4", "page-3", "page-2", "page-1", "page-0"]);
  });

  it("triggers a run whose signed delivery verifies with the tenant secret", async () => {
    const created = await tenantClient.jobs.create(job("signed", "/signed"));
    const trigger = await tenantClient.jobs.trigger(created.id);
    expect(trigger.job_id).toBe(created.id);
    const call = await waitUntil(() => target.calls.find((c) => c.path === "/signed"), {
      what: "the triggered delivery",
    });
    const signed = {
      header: String(call.headers["edgecron-signature"]),
      body: call.body,
      secrets: [signingSecret],
      method: call.method,
      url: `${target.url}${call.path}`,
      idempotencyKey: String(call.headers["idempotency-key"]),
      runId: String(call.headers["edgecron-run-id"]),
      attempt: String(call.headers["edgecron-attempt"]),
    };
    expect(await verifySignatureParts(signed)).toEqual({ ok: true });
    expect(await verifySignatureParts({ ...signed, body: `${call.body} ` })).toMatchObject({ ok: false });
    expect(await verifySignatureParts({ ...signed, url: `${target.url}/elsewhere` })).toMatchObject({
      ok: false,
    });
    const run = await waitUntil(async () => {
      const current = await tenantClient.runs.get(trigger.run_id);
      return current.state === "SUCCEEDED" ? current : undefined;
    });
    expect(run).toMatchObject({ job_id: created.id, kind: "trigger", target_status: 200 });
    expect((await tenantClient.jobs.runs(created.id)).data.map((r) => r.id)).toContain(trigger.run_id);
    expect((await tenantClient.runs.list({ job_id: created.id })).data.map((r) => r.id)).toContain(
      trigger.run_id,
    );
  });

  it("dead-letters a permanent failure, lists it, retries the run and redrives the letter", async () => {
    const created = await tenantClient.jobs.create(job("dead", "/dead", { retry: { max_attempts: 1 } }));
    const { run_id } = await tenantClient.jobs.trigger(created.id);
    const letter = await waitUntil(
      async () => (await tenantClient.deadLetters.list({ job_id: created.id })).data[0],
      {
        what: "a dead letter",
      },
    );
    expect(letter).toMatchObject({ job_id: created.id, run_id, target_status: 404 });
    const retried = await tenantClient.runs.retry(run_id);
    expect(retried).toMatchObject({ run_id, attempt: 2 });
    // The retried attempt fails permanently again; only then is the run redrivable once more.
    await waitUntil(
      async () => {
        const run = await tenantClient.runs.get(run_id);
        return run.state === "DEAD_LETTERED" && run.attempt === 2;
      },
      { what: "the retried attempt to dead-letter" },
    );
    const redriven = await tenantClient.deadLetters.redrive(letter.id);
    expect(redriven.dead_letter_id).toBe(letter.id);
  });

  it("backfills past instants", async () => {
    const hourly = await tenantClient.jobs.create(
      job("backfill", "/ok", { schedule: { type: "cron", expr: "0 * * * *", timezone: "UTC" } }),
    );
    const toMs = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
    const result = await tenantClient.jobs.backfill(hourly.id, {
      from: new Date(toMs - 2 * 3_600_000 - 1).toISOString(),
      to: new Date(toMs).toISOString(),
    });
    expect(result.created + result.skipped).toBe(3);
    expect(result.run_ids).toHaveLength(result.created);
  });

  it("keeps tenants apart, lets the admin act as a tenant, and lists alerts", async () => {
    const other = await admin.tenants.create({ name: "other" });
    const otherKey = await admin.apiKeys.create({ tenant_id: other.id });
    const otherClient = new EdgecronClient({ baseUrl: server.baseUrl, token: otherKey.key });
    const mine = await tenantClient.jobs.create(job("private"));
    await expect(otherClient.jobs.get(mine.id)).rejects.toMatchObject({ status: 404 });
    const asTenant = await admin.withTenant(tenantId).jobs.get(mine.id);
    expect(asTenant.id).toBe(mine.id);
    expect((await tenantClient.alerts.list()).data).toBeInstanceOf(Array);
  });

  it("rotates and promotes the signing secret, then revokes the key", async () => {
    const rotated = await admin.tenants.rotateSigningSecret(tenantId);
    expect(rotated.signing_secret).toBe(signingSecret);
    expect(rotated.signing_secret_next).toBeTruthy();
    const promoted = await admin.tenants.promoteSigningSecret(tenantId);
    expect(promoted).toMatchObject({
      signing_secret: rotated.signing_secret_next,
      signing_secret_next: null,
    });
    expect((await admin.tenants.list()).data.map((t) => t.id)).toContain(tenantId);

    const revoked = await admin.apiKeys.revoke(apiKeyId);
    expect(revoked.id).toBe(apiKeyId);
    await expect(tenantClient.me()).rejects.toMatchObject({ status: 401 });
  });
});
