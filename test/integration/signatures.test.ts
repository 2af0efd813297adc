// Edgecron-Signature through a rotation, checked with the client's receiver helper (what a user
// runs) against what the real local target received.
import { describe, expect, it, vi } from "vitest";
import { parseSignatureHeader, verifySignature } from "../../src/client/verify";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api } from "../helpers/api";
import { type TargetCall, targetCalls, targetCallVerifies, targetUrl, WAIT } from "../helpers/scheduling";
import { signedRequest } from "../helpers/signature";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Tenant {
  id: string;
  signing_secret: string;
  signing_secret_next: string | null;
}

/** Whether a receiver holding only `secret` accepts the call, per the client's verifySignature. */
function verifiesWith(call: TargetCall, secret: string): Promise<boolean> {
  return targetCallVerifies(call, [secret]);
}

/** The signatures the header carries: one per secret the delivery was signed with. */
function signatureCount(call: TargetCall): number {
  return parseSignatureHeader(call.headers["edgecron-signature"] ?? "")?.signatures.length ?? 0;
}

/** Triggers the job and returns the call the target received for that run. */
async function triggerAndReceive(token: string, jobId: string, path: string): Promise<TargetCall> {
  const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token });
  expect(trigger.status).toBe(202);
  return vi.waitFor(async () => {
    const calls = await targetCalls(path);
    const call = calls.find((found) => found.headers["edgecron-run-id"] === trigger.body.run_id);
    expect(call).toBeDefined();
    return call as TargetCall;
  }, WAIT);
}

describe("signature rotation", () => {
  it("signs with the current secret, with both during a rotation, and with the new one after promote", async () => {
    const tenant = (await api<Tenant>("POST", "/v1/tenants", { body: { name: "signatures" } })).body;
    const key = await api<{ key: string }>("POST", "/v1/api-keys", { body: { tenant_id: tenant.id } });
    const token = key.body.key;
    const path = `/ok/signatures-${crypto.randomUUID()}`;
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token,
      body: {
        name: "signed",
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        target: { url: targetUrl(path), body: { hello: "wörld" } },
      },
    });
    expect(job.status).toBe(201);
    const oldSecret = tenant.signing_secret;

    const first = await triggerAndReceive(token, job.body.id, path);
    expect(signatureCount(first)).toBe(1);
    expect(await verifiesWith(first, oldSecret)).toBe(true);

    const rotated = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.signing_secret_next as string;
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    const during = await triggerAndReceive(token, job.body.id, path);
    expect(signatureCount(during)).toBe(2);
    expect(await verifiesWith(during, oldSecret)).toBe(true);
    expect(await verifiesWith(during, newSecret)).toBe(true);

    const promoted = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/promote`);
    expect(promoted.body).toMatchObject({ signing_secret: newSecret, signing_secret_next: null });
    const after = await triggerAndReceive(token, job.body.id, path);
    expect(signatureCount(after)).toBe(1);
    expect(await verifiesWith(after, newSecret)).toBe(true);
    expect(await verifiesWith(after, oldSecret)).toBe(false);
  });
});

describe("the client's verifySignature replay window", () => {
  it("accepts a signature 300 s old and rejects one 301 s old", async () => {
    const secret = "whsec_replay";
    const body = '{"a":1}';
    const nowSec = 1_800_000_000;
    const check = async (t: number) =>
      verifySignature(await signedRequest({ secrets: [secret], nowSec: t, body }), [secret], { nowSec });
    expect(await check(nowSec - 300)).toEqual({ ok: true });
    expect(await check(nowSec - 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await check(nowSec + 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });
});
