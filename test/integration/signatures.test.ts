// Edgecron-Signature v2 through a rotation, checked against what the real local target received:
// by a receiver written here from the documented format alone (test/helpers/signature-v2.ts, not
// our signing code), and by the client's verifySignature, which must refuse every replay of a
// captured call to another URL, under another key, attempt, run or method.
import { describe, expect, it, vi } from "vitest";
import { verifySignature, verifySignatureParts } from "../../src/client/verify";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api } from "../helpers/api";
import { type TargetCall, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";
import { parseSignature, v2Signature, v2Verifies } from "../helpers/signature-v2";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
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

async function createJob(token: string, path: string): Promise<string> {
  const job = await api<{ id: string }>("POST", "/v1/jobs", {
    token,
    body: {
      name: "signed",
      schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
      target: { url: targetUrl(path), body: { hello: "wörld" } },
    },
  });
  expect(job.status).toBe(201);
  return job.body.id;
}

/** Triggers the job and returns the call the target received for that run, with its URL. */
async function triggerAndReceive(
  token: string,
  jobId: string,
  path: string,
): Promise<TargetCall & { url: string }> {
  const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token });
  expect(trigger.status).toBe(202);
  const call = await vi.waitFor(async () => {
    const calls = await targetCalls(path);
    const found = calls.find((candidate) => candidate.headers["edgecron-run-id"] === trigger.body.run_id);
    expect(found).toBeDefined();
    return found as TargetCall;
  }, WAIT);
  return { ...call, url: targetUrl(path) };
}

/** The receiver's view of a call, as the client's parts-based verifier takes it. */
function partsOf(call: TargetCall & { url: string }, secrets: string[]) {
  return {
    header: call.headers["edgecron-signature"],
    body: call.body,
    secrets,
    method: call.method,
    url: call.url,
    idempotencyKey: call.headers["idempotency-key"],
    runId: call.headers["edgecron-run-id"],
    attempt: call.headers["edgecron-attempt"],
    nowSec: Number(parseSignature(call.headers["edgecron-signature"]).t),
  };
}

/** The headers a replayed request carries over from the captured call. */
function signedHeadersOf(call: TargetCall): Record<string, string> {
  const names = [
    "edgecron-signature",
    "idempotency-key",
    "edgecron-run-id",
    "edgecron-attempt",
    "content-type",
  ];
  return Object.fromEntries(
    names.flatMap((name) => (call.headers[name] ? [[name, call.headers[name]]] : [])),
  );
}

describe("signature rotation", () => {
  it("signs with the current secret, with both during a rotation, and with the new one after promote", async () => {
    const { tenant, token } = await tenantWithKey("signatures");
    const path = `/ok/signatures-${crypto.randomUUID()}`;
    const jobId = await createJob(token, path);
    const oldSecret = tenant.signing_secret;

    const first = await triggerAndReceive(token, jobId, path);
    expect(parseSignature(first.headers["edgecron-signature"])).toMatchObject({ v1: [] });
    expect(parseSignature(first.headers["edgecron-signature"]).v2).toHaveLength(1);
    expect(await v2Verifies(first, oldSecret)).toBe(true);

    const rotated = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.signing_secret_next as string;
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    const during = await triggerAndReceive(token, jobId, path);
    expect(parseSignature(during.headers["edgecron-signature"]).v2).toHaveLength(2);
    expect(await v2Verifies(during, oldSecret)).toBe(true);
    expect(await v2Verifies(during, newSecret)).toBe(true);
    for (const secrets of [[oldSecret], [newSecret], [newSecret, oldSecret]]) {
      expect(await verifySignatureParts(partsOf(during, secrets))).toEqual({ ok: true });
    }

    const promoted = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/promote`);
    expect(promoted.body).toMatchObject({ signing_secret: newSecret, signing_secret_next: null });
    const after = await triggerAndReceive(token, jobId, path);
    expect(parseSignature(after.headers["edgecron-signature"]).v2).toHaveLength(1);
    expect(await v2Verifies(after, newSecret)).toBe(true);
    expect(await v2Verifies(after, oldSecret)).toBe(false);
  });
});

describe("a captured call cannot be replayed", () => {
  it("signs two jobs with the same body differently, and refuses A's call at URL B, under another key, attempt, run or method", async () => {
    const { tenant, token } = await tenantWithKey("replay");
    const pathA = `/ok/replay-a-${crypto.randomUUID()}`;
    const pathB = `/ok/replay-b-${crypto.randomUUID()}`;
    const a = await triggerAndReceive(token, await createJob(token, pathA), pathA);
    const b = await triggerAndReceive(token, await createJob(token, pathB), pathB);
    expect(a.body).toBe(b.body);
    const signatureA = parseSignature(a.headers["edgecron-signature"]).v2[0];
    expect(signatureA).toMatch(/^[0-9a-f]{64}$/);
    expect(parseSignature(b.headers["edgecron-signature"]).v2).not.toContain(signatureA);

    const secrets = [tenant.signing_secret];
    expect(await verifySignatureParts(partsOf(a, secrets))).toEqual({ ok: true });
    const mismatch = { ok: false, reason: "signature_mismatch" };
    const captured = partsOf(a, secrets);
    expect(await verifySignatureParts({ ...captured, url: b.url })).toEqual(mismatch);
    expect(await verifySignatureParts({ ...captured, url: `${a.url}?x=1` })).toEqual(mismatch);
    expect(await verifySignatureParts({ ...captured, idempotencyKey: b.headers["idempotency-key"] })).toEqual(
      mismatch,
    );
    expect(await verifySignatureParts({ ...captured, attempt: "2" })).toEqual(mismatch);
    expect(await verifySignatureParts({ ...captured, runId: b.headers["edgecron-run-id"] })).toEqual(
      mismatch,
    );
    expect(await verifySignatureParts({ ...captured, method: "PUT" })).toEqual(mismatch);
    expect(await verifySignatureParts({ ...captured, body: `${a.body} ` })).toEqual(mismatch);

    // The Request-based verifier reads the same parts from the replayed request itself.
    const replay = (url: string, headers: Record<string, string> = {}) =>
      verifySignature(
        new Request(url, { method: a.method, headers: { ...signedHeadersOf(a), ...headers }, body: a.body }),
        secrets,
        { nowSec: captured.nowSec },
      );
    expect(await replay(a.url)).toEqual({ ok: true });
    expect(await replay(b.url)).toEqual(mismatch);
    expect(await replay(a.url, { "idempotency-key": "job_other:2026-12-01T00:00:00.000Z" })).toEqual(
      mismatch,
    );
    expect(await replay(a.url, { "edgecron-attempt": "2" })).toEqual(mismatch);
  });
});

describe("the client's verifySignature replay window", () => {
  it("accepts a signature 300 s old and rejects one 301 s old", async () => {
    const secret = "whsec_replay";
    const body = '{"a":1}';
    const url = "https://receiver.example/hook";
    const nowSec = 1_800_000_000;
    const parts = { method: "POST", url, idempotencyKey: "job_1:x", runId: "run_1", attempt: "1" };
    const check = async (t: number) => {
      const request = new Request(url, {
        method: "POST",
        headers: {
          "edgecron-signature": `t=${t},v2=${await v2Signature(secret, t, parts, body)}`,
          "idempotency-key": parts.idempotencyKey,
          "edgecron-run-id": parts.runId,
          "edgecron-attempt": parts.attempt,
        },
        body,
      });
      return verifySignature(request, [secret], { nowSec });
    };
    expect(await check(nowSec - 300)).toEqual({ ok: true });
    expect(await check(nowSec - 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await check(nowSec + 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });
});
