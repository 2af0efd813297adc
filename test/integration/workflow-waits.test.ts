// `context.waitForEvent` and `notify` on /v2 through the Worker with real D1 and shards: a notify
// is done or refused, never half-done. Whatever stops its wake-up from being published (a tenant
// limit, an event too large to store, a waiter URL the target policy refuses) leaves the waiter,
// its timeout and the run as they were, so the next notify wakes it; and a wait is refused up
// front when its URLs could never be called. The SDK itself drives them in test/e2e/workflow.e2e.ts.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { type Json, v2 } from "../helpers/qstash";
import { targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

let counter = 0;
const runIdOf = () => `wfr_wait-${Date.now().toString(36)}-${++counter}`;
const eventIdOf = () => `evt-${Date.now().toString(36)}-${++counter}`;

/** A step message as the SDK publishes it: `Upstash-Workflow-*` headers, the step as the body. */
function stepHeaders(runId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "upstash-workflow-runid": runId,
    "upstash-workflow-init": "false",
    "upstash-workflow-sdk-version": "1",
    "upstash-feature-set": "LazyFetch,InitialBody",
    "upstash-forward-upstash-workflow-sdk-version": "1",
    "content-type": "application/json",
    ...extra,
  };
}

const WAIT_STEP = { stepId: 1, stepName: "wait", stepType: "Wait", concurrent: 1 };

/** A started run of `t` at `url`; its first message published as the SDK's trigger does. */
async function startRun(t: TenantWithKey, url: string): Promise<string> {
  return (await startRunWithMessage(t, url)).runId;
}

async function startRunWithMessage(
  t: TenantWithKey,
  url: string,
): Promise<{ runId: string; messageId: string }> {
  const runId = runIdOf();
  const init = await v2(
    "POST",
    `/v2/publish/${url}`,
    t.key,
    stepHeaders(runId, { "upstash-workflow-init": "true" }),
    "{}",
  );
  expect(init.status).toBe(201);
  return { runId, messageId: init.body.messageId };
}

/** POST /v2/wait/{eventId} as the SDK sends it (its fields overridable). */
async function waitFor(t: TenantWithKey, runId: string, eventId: string, fields: Record<string, unknown>) {
  const timeoutHeaders = Object.fromEntries(
    Object.entries(stepHeaders(runId)).map(([name, value]) => [name, [value]]),
  );
  return v2(
    "POST",
    `/v2/wait/${eventId}`,
    t.key,
    { "content-type": "application/json" },
    JSON.stringify({ timeout: "1h", timeoutHeaders, step: WAIT_STEP, ...fields }),
  );
}

const stepsOf = async (t: TenantWithKey, runId: string): Promise<Json[]> =>
  (await v2("GET", `/v2/workflows/runs/${runId}`, t.key)).body;
const waitersOf = async (t: TenantWithKey, eventId: string): Promise<Json[]> =>
  (await v2("GET", `/v2/waiters/${eventId}`, t.key)).body;

/** The ids of the tenant's messages (jobs) not deleted. */
async function liveMessageIds(t: TenantWithKey): Promise<string[]> {
  const jobs = await api<{ data: { id: string }[] }>("GET", "/v1/jobs?limit=100", { token: t.key });
  return jobs.body.data.map((job) => job.id).sort();
}

/** A message's job status: a wait's timeout is ACTIVE until a notify deletes it. */
async function statusOf(t: TenantWithKey, id: string): Promise<string> {
  return (await api<{ status: string }>("GET", `/v1/jobs/${id}`, { token: t.key })).body.status;
}

interface WaitingRun {
  t: TenantWithKey;
  url: string;
  runId: string;
  eventId: string;
  /** The wait's timeout message (its job). */
  timeoutId: string;
}

/** A waiting run: started, then waiting for `eventId` with a one-hour timeout. */
async function waitingRun(label: string): Promise<WaitingRun> {
  const t = await createTenantWithKey(label);
  const url = targetUrl(`/wf/${label}`);
  const { runId, messageId } = await startRunWithMessage(t, url);
  const eventId = eventIdOf();
  expect((await waitFor(t, runId, eventId, { url, timeoutUrl: url })).status).toBe(200);
  const [timeoutId] = (await liveMessageIds(t)).filter((id) => id !== messageId);
  return { t, url, runId, eventId, timeoutId: timeoutId ?? "" };
}

/** The run still waits exactly as before: its waiter listed, its timeout hidden and not deleted. */
async function expectStillWaiting({ t, runId, eventId, timeoutId }: WaitingRun, messagesBefore: string[]) {
  expect(await waitersOf(t, eventId)).toHaveLength(1);
  expect(await stepsOf(t, runId)).toHaveLength(1);
  expect(await statusOf(t, timeoutId)).toBe("ACTIVE");
  expect(await liveMessageIds(t)).toEqual(messagesBefore);
}

/** A notify that works: the one waiter woken with `data`, its wake-up step listed after the first. */
async function expectWoken({ t, runId, eventId, timeoutId }: WaitingRun, data: string) {
  const woken = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, data);
  expect(woken.status).toBe(200);
  expect(woken.body).toHaveLength(1);
  const steps = await stepsOf(t, runId);
  expect(steps).toHaveLength(2);
  expect(steps[1].messageId).toBe(woken.body[0].messageId);
  expect(JSON.parse(atob(steps[1].body))).toMatchObject({
    ...WAIT_STEP,
    out: btoa(data),
    waitTimeout: false,
  });
  expect(await waitersOf(t, eventId)).toEqual([]);
  expect(await statusOf(t, timeoutId)).toBe("DELETED");
}

describe("a notify is done or refused, never half-done", () => {
  it("keeps the waiter and its timeout when the wake-up is refused by a tenant limit, and wakes it on the next notify", async () => {
    const waiting = await waitingRun("notify-limit");
    const { t, eventId } = waiting;
    const messagesBefore = await liveMessageIds(t);
    const limits = await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { active_jobs: 1 } });
    expect(limits.status).toBe(200);
    const refused = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, '{"paid":true}');
    expect(refused.status).toBe(429);
    await expectStillWaiting(waiting, messagesBefore);
    expect((await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: {} })).status).toBe(200);
    await expectWoken(waiting, '{"paid":true}');
  });

  it("refuses an event too large to store with 413, keeping the waiter for the next notify", async () => {
    const waiting = await waitingRun("notify-large");
    const { t, eventId } = waiting;
    const messagesBefore = await liveMessageIds(t);
    const large = JSON.stringify({ blob: "x".repeat(1_400_000) });
    const refused = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, large);
    expect(refused.status).toBe(413);
    expect(refused.body.error).toContain("body");
    await expectStillWaiting(waiting, messagesBefore);
    await expectWoken(waiting, '{"small":true}');
  });

  it("refuses a suspended tenant's notify with 409, keeping the waiter for a notify after the unsuspend", async () => {
    const waiting = await waitingRun("notify-suspended");
    const { t, eventId } = waiting;
    const messagesBefore = await liveMessageIds(t);
    expect((await api("POST", `/v1/tenants/${t.tenantId}/suspend`)).status).toBe(200);
    const refused = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, "go");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("is suspended");
    await expectStillWaiting(waiting, messagesBefore);
    expect((await api("POST", `/v1/tenants/${t.tenantId}/unsuspend`)).status).toBe(200);
    await expectWoken(waiting, "go");
  });

  it("refuses the whole notify, consuming nothing, when one waiter's wake-up cannot be published", async () => {
    const { t, url, runId, eventId, timeoutId } = await waitingRun("notify-one-bad");
    // A second run waits with a wake-up URL the target policy refuses. /v2/wait refuses that
    // now; an older deployment stored it, as this row does.
    const other = await startRun(t, url);
    await env.DB.prepare(
      `INSERT INTO workflow_waiters (tenant_id, event_id, run_id, url, headers, step, timeout_message_id, deadline_ms, created_at_ms)
       VALUES (?1, ?2, ?3, 'http://user:secret@example.com/wf', ?4, ?5, 'msg_none', ?6, ?7)`,
    )
      .bind(
        t.tenantId,
        eventId,
        other,
        JSON.stringify(stepHeaders(other)),
        JSON.stringify(WAIT_STEP),
        Date.now() + 3_600_000,
        Date.now(),
      )
      .run();
    const messagesBefore = await liveMessageIds(t);
    const refused = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, "go");
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain(other);
    expect(await waitersOf(t, eventId)).toHaveLength(2);
    expect(await stepsOf(t, runId)).toHaveLength(1);
    expect(await statusOf(t, timeoutId)).toBe("ACTIVE");
    expect(await liveMessageIds(t)).toEqual(messagesBefore);
  });

  it("drops the waiter of a run that has ended and wakes the others", async () => {
    const { t, url, runId, eventId } = await waitingRun("notify-ended");
    const ended = await startRun(t, url);
    expect((await waitFor(t, ended, eventId, { url, timeoutUrl: url })).status).toBe(200);
    expect((await v2("DELETE", `/v2/workflows/runs/${ended}?cancel=true`, t.key)).status).toBe(200);
    const woken = await v2("POST", `/v2/notify/${eventId}`, t.key, {}, "go");
    expect(woken.status).toBe(200);
    expect(woken.body).toHaveLength(1);
    expect(await stepsOf(t, runId)).toHaveLength(2);
    expect(await waitersOf(t, eventId)).toEqual([]);
  });
});

describe("a wait is checked like every target", () => {
  it("refuses a wait whose url or timeoutUrl the target policy refuses, naming it, and stores nothing", async () => {
    const t = await createTenantWithKey("wait-policy");
    const url = targetUrl("/wf/policy");
    const runId = await startRun(t, url);
    const eventId = eventIdOf();
    const messagesBefore = await liveMessageIds(t);
    const withCredentials = "http://user:secret@example.com/wf";
    const badUrl = await waitFor(t, runId, eventId, { url: withCredentials, timeoutUrl: url });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatch(/^url: .*credentials/);
    const badTimeout = await waitFor(t, runId, eventId, { url, timeoutUrl: "ftp://example.com/wf" });
    expect(badTimeout.status).toBe(400);
    expect(badTimeout.body.error).toMatch(/^timeoutUrl: .*http or https/);
    expect(await waitersOf(t, eventId)).toEqual([]);
    expect(await stepsOf(t, runId)).toHaveLength(1);
    expect(await liveMessageIds(t)).toEqual(messagesBefore);
  });
});
