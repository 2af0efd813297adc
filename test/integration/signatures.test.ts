// Edgecron-Signature through a rotation, checked by a receiver written here from the documented
// format alone (not with our signing code), against what the real local target received.
import { describe, expect, it, vi } from "vitest";
import { verifySignature } from "../../src/client/verify";
import { api } from "../helpers/api";
import { type TargetCall, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

interface Tenant {
  id: string;
  signing_secret: string;
  signing_secret_next: string | null;
}

/** Independent receiver: HMAC-SHA256(secret, "<t>.<body>") as hex, with WebCrypto. */
async function hmacHex(secret: string, message: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function parseHeader(header: string | undefined): { t: string; v1: string[] } {
  const parts = (header ?? "").split(",").map((part) => part.split("="));
  const t = parts.find(([name]) => name === "t")?.[1] ?? "";
  return { t, v1: parts.filter(([name]) => name === "v1").map(([, value]) => value ?? "") };
}

async function verifiesWith(call: TargetCall, secret: string): Promise<boolean> {
  const { t, v1 } = parseHeader(call.headers["edgecron-signature"]);
  return v1.includes(await hmacHex(secret, `${t}.${call.body}`));
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
    expect(parseHeader(first.headers["edgecron-signature"]).v1).toHaveLength(1);
    expect(await verifiesWith(first, oldSecret)).toBe(true);

    const rotated = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.signing_secret_next as string;
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    const during = await triggerAndReceive(token, job.body.id, path);
    expect(parseHeader(during.headers["edgecron-signature"]).v1).toHaveLength(2);
    expect(await verifiesWith(during, oldSecret)).toBe(true);
    expect(await verifiesWith(during, newSecret)).toBe(true);

    const promoted = await api<Tenant>("POST", `/v1/tenants/${tenant.id}/signing-secret/promote`);
    expect(promoted.body).toMatchObject({ signing_secret: newSecret, signing_secret_next: null });
    const after = await triggerAndReceive(token, job.body.id, path);
    expect(parseHeader(after.headers["edgecron-signature"]).v1).toHaveLength(1);
    expect(await verifiesWith(after, newSecret)).toBe(true);
    expect(await verifiesWith(after, oldSecret)).toBe(false);
  });
});

describe("the client's verifySignature replay window", () => {
  it("accepts a signature 300 s old and rejects one 301 s old", async () => {
    const secret = "whsec_replay";
    const body = '{"a":1}';
    const nowSec = 1_800_000_000;
    const headerAt = async (t: number) => `t=${t},v1=${await hmacHex(secret, `${t}.${body}`)}`;
    const check = async (t: number) => {
      const request = new Request("https://receiver.example/hook", {
        method: "POST",
        headers: { "edgecron-signature": await headerAt(t) },
        body,
      });
      return verifySignature(request, [secret], { nowSec });
    };
    expect(await check(nowSec - 300)).toEqual({ ok: true });
    expect(await check(nowSec - 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await check(nowSec + 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });
});
