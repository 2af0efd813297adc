// While a tenant is suspended, every action that would start work is refused with 409
// `tenant_suspended` and consumes nothing (src/service/suspension.ts), on /v1, on the QStash
// surface and in the console; after the unsuspend each one works, and a dead letter refused
// during the suspension is redriven then (a letter is used up only by a redrive that ran).
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";
import { type Json, v2 } from "../helpers/qstash";
import { targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

const YEARLY = { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" };
let pathCounter = 0;
const uniquePath = (kind: string) => `/${kind}/suspended-${Date.now().toString(36)}-${++pathCounter}`;

async function createJob(t: TenantWithKey, fields: Record<string, unknown>): Promise<string> {
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: t.key,
    body: {
      name: `job-${++pathCounter}`,
      schedule: YEARLY,
      target: { url: targetUrl(uniquePath("ok")) },
      ...fields,
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** A job whose one run ended dead-lettered (its target answers 404): the job, the run, the letter. */
async function deadLetteredJob(t: TenantWithKey) {
  const jobId = await createJob(t, {
    target: { url: targetUrl(uniquePath("status/404")) },
    retry: { max_attempts: 1 },
  });
  expect((await api("POST", `/v1/jobs/${jobId}/trigger`, { token: t.key })).status).toBe(202);
  const letter = await vi.waitFor(async () => {
    const res = await api<{ data: { id: string; run_id: string }[] }>(
      "GET",
      `/v1/dead-letters?job_id=${jobId}`,
      {
        token: t.key,
      },
    );
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0] as { id: string; run_id: string };
  }, WAIT);
  return { jobId, runId: letter.run_id, letterId: letter.id };
}

const runCount = async (t: TenantWithKey, jobId: string) =>
  (await api<{ data: unknown[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: t.key })).body.data.length;

const setSuspended = async (t: TenantWithKey, suspended: boolean) =>
  expect((await api("POST", `/v1/tenants/${t.tenantId}/${suspended ? "suspend" : "unsuspend"}`)).status).toBe(
    200,
  );

/** A /v1 refusal: 409 problem+json `tenant_suspended`, saying what was refused. */
function expectSuspendedProblem(res: { status: number; headers: Headers; body: Json }, action: string) {
  expect(res.status).toBe(409);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.body).toMatchObject({ code: "tenant_suspended", status: 409 });
  expect(res.body.detail).toContain(action);
}

describe("while a tenant is suspended, what would start work is refused with 409 and consumes nothing", () => {
  it("on /v1: trigger, debounced trigger, backfill, run retry and dead-letter redrive; each works after the unsuspend", async () => {
    const t = await createTenantWithKey("suspended-v1");
    const failed = await deadLetteredJob(t);
    const debounced = await createJob(t, { debounce: { period: "1m", mode: "trailing" } });
    const runsBefore = await runCount(t, failed.jobId);
    await setSuspended(t, true);

    const opts = { token: t.key };
    expectSuspendedProblem(await api("POST", `/v1/jobs/${failed.jobId}/trigger`, opts), "trigger a job");
    expectSuspendedProblem(
      await api("POST", `/v1/jobs/${debounced}/trigger`, { ...opts, body: { debounce_key: "k" } }),
      "trigger a job",
    );
    const range = { from: "2024-01-01T00:00:00Z", to: "2024-06-01T00:00:00Z" };
    expectSuspendedProblem(
      await api("POST", `/v1/jobs/${failed.jobId}/backfill`, { ...opts, body: range }),
      "backfill a job",
    );
    expectSuspendedProblem(await api("POST", `/v1/runs/${failed.runId}/retry`, opts), "retry a run");
    expectSuspendedProblem(
      await api("POST", `/v1/dead-letters/${failed.letterId}/redrive`, opts),
      "redrive a dead letter",
    );
    // Nothing was consumed: no run was made, and the letter is still there to redrive.
    expect(await runCount(t, failed.jobId)).toBe(runsBefore);
    expect(await runCount(t, debounced)).toBe(0);
    const letters = await api<{ data: { id: string; redriven_at: string | null }[] }>(
      "GET",
      `/v1/dead-letters?job_id=${failed.jobId}`,
      opts,
    );
    expect(letters.body.data).toEqual([expect.objectContaining({ id: failed.letterId, redriven_at: null })]);

    await setSuspended(t, false);
    expect((await api("POST", `/v1/dead-letters/${failed.letterId}/redrive`, opts)).status).toBe(202);
    expect(
      (await api("POST", `/v1/jobs/${debounced}/trigger`, { ...opts, body: { debounce_key: "k" } })).status,
    ).toBe(202);
    const backfill = await api<{ created: number }>("POST", `/v1/jobs/${failed.jobId}/backfill`, {
      ...opts,
      body: range,
    });
    expect(backfill.status).toBe(202);
    expect(backfill.body.created).toBe(1);
  });

  it("on /v2: publish, enqueue, batch, a message run now and a DLQ retry", async () => {
    const t = await createTenantWithKey("suspended-v2");
    const delayed = await v2(
      "POST",
      `/v2/publish/${targetUrl(uniquePath("ok"))}`,
      t.key,
      { "upstash-delay": "1h" },
      "{}",
    );
    expect(delayed.status).toBe(201);
    const failing = await v2(
      "POST",
      `/v2/publish/${targetUrl(uniquePath("status/404"))}`,
      t.key,
      { "upstash-retries": "0" },
      "{}",
    );
    expect(failing.status).toBe(201);
    const dlqId = await vi.waitFor(async () => {
      const { body } = await v2("GET", `/v2/dlq?messageId=${failing.body.messageId}`, t.key);
      expect(body.messages).toHaveLength(1);
      return body.messages[0].dlqId as string;
    }, WAIT);
    const jobsBefore = (await api<{ data: unknown[] }>("GET", "/v1/jobs?limit=100", { token: t.key })).body
      .data;
    await setSuspended(t, true);

    const url = targetUrl(uniquePath("ok"));
    const refusals = [
      await v2("POST", `/v2/publish/${url}`, t.key, {}, "{}"),
      await v2("POST", `/v2/enqueue/suspended-queue/${url}`, t.key, {}, "{}"),
      await v2(
        "POST",
        "/v2/batch",
        t.key,
        { "content-type": "application/json" },
        JSON.stringify([{ destination: url }]),
      ),
      await v2("POST", `/v2/messages/${delayed.body.messageId}/retry`, t.key),
      await v2("POST", `/v2/dlq/retry?dlqIds=${dlqId}`, t.key),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(409);
      expect(refused.body.error).toContain("is suspended");
    }
    const jobsAfter = (await api<{ data: unknown[] }>("GET", "/v1/jobs?limit=100", { token: t.key })).body
      .data;
    expect(jobsAfter).toEqual(jobsBefore);
    expect((await v2("GET", "/v2/queues/suspended-queue", t.key)).status).toBe(404);

    await setSuspended(t, false);
    const retried = await v2("POST", `/v2/dlq/retry?dlqIds=${dlqId}`, t.key);
    expect(retried.status).toBe(200);
    expect(retried.body.responses).toHaveLength(1);
    expect((await v2("POST", `/v2/publish/${url}`, t.key, {}, "{}")).status).toBe(201);
  });

  it("in the console: a trigger shows the refusal and makes no run", async () => {
    const t = await createTenantWithKey("suspended-console");
    const jobId = await createJob(t, {});
    const client = new ConsoleClient();
    await client.signIn(t.key);
    const page = await client.get(`/console/jobs/${jobId}`);
    await setSuspended(t, true);
    const res = await client.post(`/console/jobs/${jobId}/trigger`, {
      _csrf: ConsoleClient.csrfOf(page.text),
      confirmed: "1",
    });
    expect(res.text).toContain("is suspended");
    expect(await runCount(t, jobId)).toBe(0);
  });
});
