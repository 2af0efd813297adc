// The receiver helper runs inside Workers too (WebCrypto in workerd): a Worker verifying calls
// from edgecron is a first-class use.
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/client/verify";
import { signedRequest } from "../helpers/signature";

describe("verifySignature in workerd", () => {
  const nowSec = 1_764_403_200;
  const body = JSON.stringify({ sub: 42 });

  it("accepts a signed request, rejects a tampered one, and leaves the body readable", async () => {
    // Signed with the next secret only: a receiver holding both (mid-rotation) accepts it.
    const request = await signedRequest({ secrets: ["whsec_next"], nowSec, body });
    const headers = new Headers(request.headers);
    expect(await verifySignature(request, ["whsec_old", "whsec_next"], { nowSec })).toEqual({ ok: true });
    expect(await verifySignature(request, ["whsec_old"], { nowSec })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
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
