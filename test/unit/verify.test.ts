// The receiver helper runs inside Workers too (WebCrypto in workerd): a Worker verifying calls
// from edgecron is a first-class use.
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/client/verify";
import { v2Signature } from "../helpers/signature-v2";

describe("verifySignature in workerd", () => {
  const nowSec = 1_764_403_200;
  const body = JSON.stringify({ sub: 42 });
  const url = "https://receiver.example/hook";
  const parts = {
    method: "POST",
    url,
    idempotencyKey: "job_1:2026-12-01T00:00:00.000Z",
    runId: "run_1",
    attempt: "1",
  };

  async function signedHeaders(): Promise<Record<string, string>> {
    const signature = await v2Signature("whsec_next", nowSec, parts, body);
    return {
      "edgecron-signature": `t=${nowSec},v2=${"0".repeat(64)},v2=${signature}`,
      "idempotency-key": parts.idempotencyKey,
      "edgecron-run-id": parts.runId,
      "edgecron-attempt": parts.attempt,
    };
  }

  it("accepts a signed request, rejects a tampered one, and leaves the body readable", async () => {
    const headers = await signedHeaders();
    const request = new Request(url, { method: "POST", headers, body });
    expect(await verifySignature(request, ["whsec_old", "whsec_next"], { nowSec })).toEqual({ ok: true });
    expect(await request.json()).toEqual({ sub: 42 });

    const tampered = new Request(url, { method: "POST", headers, body: '{"sub":43}' });
    expect(await verifySignature(tampered, ["whsec_next"], { nowSec })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const replayed = new Request(url, { method: "POST", headers, body });
    expect(await verifySignature(replayed, ["whsec_next"], { nowSec: nowSec + 301 })).toEqual({
      ok: false,
      reason: "timestamp_out_of_tolerance",
    });
  });

  it("takes the URL from the request, or from options.url behind a proxy that rewrote it", async () => {
    const headers = await signedHeaders();
    const proxied = new Request("http://internal:8080/hook", { method: "POST", headers, body });
    expect(await verifySignature(proxied, ["whsec_next"], { nowSec })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const again = new Request("http://internal:8080/hook", { method: "POST", headers, body });
    expect(await verifySignature(again, ["whsec_next"], { nowSec, url })).toEqual({ ok: true });
  });
});
