// QStash-format delivery through the real engine (D1, shard, dispatch and side-delivery queues,
// a real local target): every call of a job with a `qstash` field, and every callback, verified
// by the official client's Receiver, across a signing secret rotation.
import { Receiver } from "@upstash/qstash";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api } from "../helpers/api";
import { type TargetCall, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

interface Tenant {
  id: string;
  signing_secret: string;
  signing_secret_next: string | null;
}

async function tenantWithKey(name: string): Promise<{ tenant: Tenant; token: string }> {
  const tenant = (await api<Tenant>("POST", "/v1/tenants", { body: { name } })).body;
  const key = await api<{ key: string }>("POST", "/v1/api-keys", { body: { tenant_id: tenant.id } });
  return { tenant, token: key.body.key };
}

async function createJob(token: string, body: Record<string, unknown>): Promise<string> {
  const job = await api<{ id: string }>("POST", "/v1/jobs", {
    token,
    body: { name: "qstash", schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" }, ...body },
  });
  expect(job.status, JSON.stringify(job.body)).toBe(201);
  return job.body.id;
}

async function trigger(token: string, jobId: string): Promise<string> {
  const run = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token });
  expect(run.status).toBe(202);
  return run.body.run_id;
}

async function received(path: string, match: (call: TargetCall) => boolean): Promise<TargetCall> {
  return vi.waitFor(async () => {
    const found = (await targetCalls(path)).find(match);
    expect(found).toBeDefined();
    return found as TargetCall;
  }, WAIT);
}

function verify(call: TargetCall, keys: [string, string], url: string): Promise<boolean> {
  const receiver = new Receiver({ currentSigningKey: keys[0], nextSigningKey: keys[1] });
  return receiver.verify({ signature: String(call.headers["upstash-signature"]), body: call.body, url });
}

describe("a job with a qstash field", () => {
  it("is verified by the Receiver before, during and after a rotation, with QStash's headers", async () => {
    const { tenant, token } = await tenantWithKey("qstash-rotation");
    const path = `/ok/qstash-${crypto.randomUUID()}`;
    const url = `${targetUrl(path)}?x=1&y=two`;
    const jobId = await createJob(token, {
      target: { url, body: '{"hello":"wörld"}', headers: { "content-type": "application/json" } },
      qstash: {},
    });
    const byRun = (runId: string) => (call: TargetCall) => call.headers["edgecron-run-id"] === runId;
    const oldKey = tenant.signing_secret;

    const before = await received(path, byRun(await trigger(token, jobId)));
    expect(before.body).toBe('{"hello":"wörld"}');
    expect(before.headers).toMatchObject({
      "upstash-message-id": jobId,
      "upstash-retried": "0",
      "user-agent": "Upstash-QStash",
    });
    expect(await verify(before, [oldKey, oldKey], url)).toBe(true);

    const rotated = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/rotate`);
    const newKey = rotated.body.signing_secret_next as string;
    const during = await received(path, byRun(await trigger(token, jobId)));
    expect(await verify(during, [oldKey, newKey], url)).toBe(true);

    await api("POST", `/v1/tenants/${tenant.id}/signing-secret/promote`);
    const after = await received(path, byRun(await trigger(token, jobId)));
    // A receiver still holding the keys it read during the rotation verifies with its next key.
    expect(await verify(after, [oldKey, newKey], url)).toBe(true);
    await expect(verify(after, [oldKey, oldKey], url)).rejects.toThrow();
  });

  it("posts every attempt's answer to its callback, signed, in QStash's callback body", async () => {
    const { tenant, token } = await tenantWithKey("qstash-callback");
    const path = `/ok/qstash-cb-target-${crypto.randomUUID()}`;
    const callbackPath = `/ok/qstash-cb-${crypto.randomUUID()}`;
    const jobId = await createJob(token, {
      target: { url: targetUrl(path), method: "PUT", body: "ping", headers: { "x-app": "1" } },
      retry: { max_attempts: 4 },
      qstash: { callback: targetUrl(callbackPath) },
    });
    const runId = await trigger(token, jobId);
    const callback = await received(callbackPath, () => true);
    const key = tenant.signing_secret;
    expect(await verify(callback, [key, key], targetUrl(callbackPath))).toBe(true);
    const body = JSON.parse(callback.body);
    expect(body).toMatchObject({
      status: 200,
      body: btoa("200"),
      retried: 0,
      maxRetries: 3,
      sourceMessageId: jobId,
      url: targetUrl(path),
      method: "PUT",
      sourceHeader: { "x-app": ["1"] },
      sourceBody: btoa("ping"),
    });
    expect(body.header["content-type"]).toEqual(["text/plain"]);
    expect(body).not.toHaveProperty("dlqId");
    expect(callback.headers["upstash-message-id"]).toBe(`qcb_${runId}_1`);
  });

  it("posts a dead-lettered run's last answer to its failure callback, with its dlqId", async () => {
    const { tenant, token } = await tenantWithKey("qstash-failure");
    const path = `/status/500/qstash-${crypto.randomUUID()}`;
    const failurePath = `/ok/qstash-fail-${crypto.randomUUID()}`;
    const jobId = await createJob(token, {
      target: { url: targetUrl(path), body: "doomed" },
      retry: { max_attempts: 1 },
      qstash: { failure_callback: targetUrl(failurePath) },
    });
    const runId = await trigger(token, jobId);
    const failure = await received(failurePath, () => true);
    const key = tenant.signing_secret;
    expect(await verify(failure, [key, key], targetUrl(failurePath))).toBe(true);
    const body = JSON.parse(failure.body);
    expect(body).toMatchObject({
      status: 500,
      // The target's body as far as the dead letter kept it.
      body: btoa("500"),
      retried: 0,
      maxRetries: 0,
      sourceMessageId: jobId,
      sourceBody: btoa("doomed"),
      dlqId: `dlq_${runId.slice(4)}_1`,
    });
    const letters = await api<{ data: { id: string }[] }>("GET", "/v1/dead-letters", { token });
    expect(letters.body.data.map((letter) => letter.id)).toContain(body.dlqId);
  });

  it("carries the failed call's whole answer, and a source body too large for a queue message", async () => {
    const { tenant, token } = await tenantWithKey("qstash-failure-large");
    const path = `/answer/500/qstash-${crypto.randomUUID()}`;
    const failurePath = `/ok/qstash-fail-large-${crypto.randomUUID()}`;
    // The target answers this body back: an error far longer than the dead letter's first bytes,
    // and, base64 in the callback, more than a queue message holds.
    const error = JSON.stringify({ error: "Error", message: "it broke", stack: "at step\n".repeat(11_000) });
    const jobId = await createJob(token, {
      target: { url: targetUrl(path), body: error, headers: { "content-type": "application/json" } },
      retry: { max_attempts: 1 },
      qstash: { failure_callback: targetUrl(failurePath) },
    });
    await trigger(token, jobId);
    const failure = await received(failurePath, () => true);
    const key = tenant.signing_secret;
    expect(await verify(failure, [key, key], targetUrl(failurePath))).toBe(true);
    const body = JSON.parse(failure.body);
    expect(atob(body.sourceBody)).toBe(error);
    // The answer as the target sent it (its first 32 KiB), with its headers.
    expect(body.status).toBe(500);
    expect(atob(body.body)).toBe(error.slice(0, 32 * 1024));
    expect(body.header["x-answered"]).toEqual(["whole"]);
  });
});
