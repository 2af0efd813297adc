// Upstash Workflow runs on /v2 through the Worker with real D1 and shards: what a step message
// stores (the run, its inherited settings, its step list), how the SDK's routes read and end a
// run, and every refusal. The SDK itself drives them in test/e2e/workflow.e2e.ts.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { BASE, createTenantWithKey } from "../helpers/api";
import { targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

let counter = 0;
const runIdOf = () => `wfr_test-${Date.now().toString(36)}-${++counter}`;

async function call(
  method: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

/** A step message as the SDK publishes it: `Upstash-Workflow-*` headers, the step as the body. */
function stepHeaders(runId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "upstash-workflow-runid": runId,
    "upstash-workflow-init": "false",
    "upstash-workflow-sdk-version": "1",
    "upstash-feature-set": "LazyFetch,InitialBody",
    "upstash-forward-upstash-workflow-sdk-version": "1",
    "upstash-forward-host": "endpoint.example",
    "content-type": "application/json",
    ...extra,
  };
}

async function jobOf(token: string, id: string) {
  return (await call("GET", `/v1/jobs/${id}`, token)).body as {
    status: string;
    retry: { max_attempts: number };
    target: { headers: Record<string, string>; body?: unknown };
    qstash: { failure_callback: string | null; failure_callback_headers?: Record<string, string> };
  };
}

describe("workflow runs on /v2", () => {
  it("keeps the run's steps in order and gives every later message the first one's settings", async () => {
    const t = await createTenantWithKey("workflow");
    const runId = runIdOf();
    const url = targetUrl("/wf/settings");
    const init = await call(
      "POST",
      `/v2/publish/${url}`,
      t.key,
      {
        ...stepHeaders(runId, { "upstash-workflow-init": "true", "upstash-workflow-url": url }),
        "upstash-retries": "7",
        "upstash-failure-callback": url,
        "upstash-failure-callback-forward-upstash-workflow-is-failure": "true",
      },
      '{"order":1}',
    );
    expect(init.status).toBe(201);
    const step = await call(
      "POST",
      `/v2/batch`,
      t.key,
      { "content-type": "application/json" },
      JSON.stringify([
        { destination: url, headers: stepHeaders(runId), body: '{"stepId":1,"stepName":"a","out":"1"}' },
      ]),
    );
    expect(step.status).toBe(201);
    const later = await jobOf(t.key, step.body[0].messageId);
    expect(later.retry.max_attempts).toBe(8);
    expect(later.qstash.failure_callback).toBe(url);
    expect(later.qstash.failure_callback_headers).toEqual({ "upstash-workflow-is-failure": "true" });
    // Delivered with the run's id and an empty body (LazyFetch); the SDK's forwarded Host dropped.
    expect(later.target.headers).toMatchObject({
      "upstash-workflow-runid": runId,
      "upstash-workflow-sdk-version": "1",
    });
    expect(later.target.headers.host).toBeUndefined();
    expect(later.target.body).toBeUndefined();
    const steps = await call("GET", `/v2/workflows/runs/${runId}`, t.key);
    expect(steps.body).toEqual([
      { messageId: init.body.messageId, body: btoa('{"order":1}'), callType: "step" },
      {
        messageId: step.body[0].messageId,
        body: btoa('{"stepId":1,"stepName":"a","out":"1"}'),
        callType: "step",
      },
    ]);
  });

  it("refuses a step of a run that is not running, and stores nothing", async () => {
    const t = await createTenantWithKey("workflow");
    const res = await call(
      "POST",
      `/v2/publish/${targetUrl("/wf/none")}`,
      t.key,
      stepHeaders(runIdOf()),
      "{}",
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toContain("is not running");
    const jobs = await call("GET", "/v1/jobs", t.key);
    expect(jobs.body.data).toEqual([]);
  });

  it("ends a run at the SDK's last call, after which its steps are gone and a late step is refused", async () => {
    const t = await createTenantWithKey("workflow");
    const runId = runIdOf();
    const url = targetUrl("/wf/end");
    await call(
      "POST",
      `/v2/publish/${url}`,
      t.key,
      stepHeaders(runId, { "upstash-workflow-init": "true" }),
      "{}",
    );
    expect(
      (await call("DELETE", `/v2/workflows/runs/${runId}?cancel=false`, t.key, {}, '"done"')).status,
    ).toBe(200);
    // Twice is fine: a step delivered twice ends the run twice.
    expect((await call("DELETE", `/v2/workflows/runs/${runId}?cancel=false`, t.key)).status).toBe(200);
    expect((await call("GET", `/v2/workflows/runs/${runId}`, t.key)).status).toBe(404);
    expect((await call("POST", `/v2/publish/${url}`, t.key, stepHeaders(runId), "{}")).status).toBe(404);
    const logs = await call("GET", `/v2/workflows/events?workflowRunId=${runId}`, t.key);
    expect(logs.body.runs[0]).toMatchObject({ workflowState: "RUN_SUCCESS", workflowRunResponse: '"done"' });
    expect((await call("DELETE", "/v2/workflows/runs/wfr_unknown?cancel=false", t.key)).status).toBe(404);
  });

  it("cancels a run's waiting messages, and refuses a cancel or a log filter it does not serve", async () => {
    const t = await createTenantWithKey("workflow");
    const runId = runIdOf();
    const url = targetUrl("/wf/cancel");
    await call(
      "POST",
      `/v2/publish/${url}`,
      t.key,
      stepHeaders(runId, { "upstash-workflow-init": "true" }),
      "{}",
    );
    const sleeping = await call(
      "POST",
      `/v2/publish/${url}`,
      t.key,
      { ...stepHeaders(runId), "upstash-delay": "1h" },
      "{}",
    );
    const refused = await call("DELETE", "/v2/workflows/runs?workflowUrl=x", t.key);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("workflowUrl");
    expect((await call("GET", "/v2/workflows/events?label=x", t.key)).body.error).toContain("label");
    expect((await call("DELETE", `/v2/workflows/runs?workflowRunIds=${runId}`, t.key)).body).toEqual({
      cancelled: 1,
    });
    expect((await jobOf(t.key, sleeping.body.messageId)).status).toBe("DELETED");
    const logs = await call("GET", `/v2/workflows/events?workflowRunId=${runId}`, t.key);
    expect(logs.body.runs[0].workflowState).toBe("RUN_CANCELED");
  });

  it("hides a wait's timeout from the run's steps until its deadline, and notify replaces it", async () => {
    const t = await createTenantWithKey("workflow");
    const runId = runIdOf();
    const url = targetUrl("/wf/wait");
    await call(
      "POST",
      `/v2/publish/${url}`,
      t.key,
      stepHeaders(runId, { "upstash-workflow-init": "true" }),
      "{}",
    );
    const timeoutHeaders = Object.fromEntries(
      Object.entries(stepHeaders(runId)).map(([name, value]) => [name, [value]]),
    );
    const step = { stepId: 1, stepName: "wait", stepType: "Wait", concurrent: 1 };
    const wait = await call(
      "POST",
      "/v2/wait/evt-1",
      t.key,
      { "content-type": "application/json" },
      JSON.stringify({ url, timeout: "1h", timeoutUrl: url, timeoutHeaders, step }),
    );
    expect(wait.status).toBe(200);
    expect((await call("GET", `/v2/workflows/runs/${runId}`, t.key)).body).toHaveLength(1);
    expect((await call("GET", "/v2/waiters/evt-1", t.key)).body).toHaveLength(1);
    const woken = await call("POST", "/v2/notify/evt-1", t.key, {}, '{"paid":true}');
    expect(woken.body).toHaveLength(1);
    const steps = (await call("GET", `/v2/workflows/runs/${runId}`, t.key)).body as {
      messageId: string;
      body: string;
    }[];
    expect(steps).toHaveLength(2);
    expect(steps[1]?.messageId).toBe(woken.body[0].messageId);
    expect(JSON.parse(atob(steps[1]?.body ?? ""))).toMatchObject({
      ...step,
      out: btoa('{"paid":true}'),
      waitTimeout: false,
    });
    expect((await call("GET", "/v2/waiters/evt-1", t.key)).body).toEqual([]);
    expect((await call("POST", "/v2/notify/evt-1", t.key, {}, "again")).body).toEqual([]);
  });
});
