// The receiver helper runs inside Workers too (WebCrypto in workerd): a Worker verifying calls
// from edgecron is a first-class use.
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/client/verify";

async function hexHmac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

describe("verifySignature in workerd", () => {
  const nowSec = 1_764_403_200;
  const body = JSON.stringify({ sub: 42 });

  it("accepts a signed request, rejects a tampered one, and leaves the body readable", async () => {
    const signature = await hexHmac("whsec_next", `${nowSec}.${body}`);
    const headers = { "edgecron-signature": `t=${nowSec},v1=${"0".repeat(64)},v1=${signature}` };
    const request = new Request("https://receiver.example/hook", { method: "POST", headers, body });
    expect(await verifySignature(request, ["whsec_old", "whsec_next"], { nowSec })).toEqual({ ok: true });
    expect(await request.json()).toEqual({ sub: 42 });

    const tampered = new Request("https://receiver.example/hook", {
      method: "POST",
      headers,
      body: '{"sub":43}',
    });
    expect(await verifySignature(tampered, ["whsec_next"], { nowSec })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const replayed = new Request("https://receiver.example/hook", { method: "POST", headers, body });
    expect(await verifySignature(replayed, ["whsec_next"], { nowSec: nowSec + 301 })).toEqual({
      ok: false,
      reason: "timestamp_out_of_tolerance",
    });
  });
});
