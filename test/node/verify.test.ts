import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifySignature, verifySignatureParts } from "../../src/client/verify";

const NOW_SEC = 1_764_403_200;
const BODY = '{"sub":42,"note":"grüße"}';

/** Signs independently of the code under test: node:crypto, not WebCrypto. */
function sign(secret: string, timestampSec: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestampSec}.${body}`).digest("hex");
}

function header(timestampSec: number, ...signatures: string[]): string {
  return [`t=${timestampSec}`, ...signatures.map((s) => `v1=${s}`)].join(",");
}

describe("verifySignatureParts", () => {
  it("accepts a signature made with the secret over t.body", async () => {
    const result = await verifySignatureParts({
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: BODY,
      secrets: "whsec_a",
      nowSec: NOW_SEC + 10,
    });
    expect(result).toEqual({ ok: true });
  });

  it("accepts the raw bytes of the body as well as its text", async () => {
    const result = await verifySignatureParts({
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: new TextEncoder().encode(BODY),
      secrets: ["whsec_a"],
      nowSec: NOW_SEC,
    });
    expect(result.ok).toBe(true);
  });

  it("rejects a tampered body", async () => {
    const result = await verifySignatureParts({
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: BODY.replace("42", "43"),
      secrets: ["whsec_a"],
      nowSec: NOW_SEC,
    });
    expect(result).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("rejects a tampered timestamp even inside the window", async () => {
    const result = await verifySignatureParts({
      header: header(NOW_SEC + 1, sign("whsec_a", NOW_SEC, BODY)),
      body: BODY,
      secrets: ["whsec_a"],
      nowSec: NOW_SEC,
    });
    expect(result).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("rejects a valid signature older or newer than the tolerance (replay window)", async () => {
    const signed = header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY));
    const at = (nowSec: number, toleranceSec?: number) =>
      verifySignatureParts({ header: signed, body: BODY, secrets: ["whsec_a"], nowSec, toleranceSec });
    expect(await at(NOW_SEC + 300)).toEqual({ ok: true });
    expect(await at(NOW_SEC + 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await at(NOW_SEC - 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await at(NOW_SEC + 30, 10)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });

  it("uses the real clock when nowSec is not given", async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const fresh = await verifySignatureParts({
      header: header(nowSec, sign("s", nowSec, BODY)),
      body: BODY,
      secrets: "s",
    });
    const stale = await verifySignatureParts({
      header: header(NOW_SEC, sign("s", NOW_SEC, BODY)),
      body: BODY,
      secrets: "s",
    });
    expect(fresh.ok).toBe(true);
    expect(stale).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });

  describe("during a secret rotation", () => {
    const oldSig = sign("whsec_old", NOW_SEC, BODY);
    const newSig = sign("whsec_new", NOW_SEC, BODY);

    it("accepts when any of the receiver's secrets matches any v1", async () => {
      const both = header(NOW_SEC, newSig, oldSig);
      for (const secrets of [
        ["whsec_old"],
        ["whsec_new"],
        ["whsec_other", "whsec_new"],
        ["whsec_old", "whsec_new"],
      ]) {
        expect(await verifySignatureParts({ header: both, body: BODY, secrets, nowSec: NOW_SEC })).toEqual({
          ok: true,
        });
      }
    });

    it("accepts a header signed with one secret by a receiver holding old and new", async () => {
      const result = await verifySignatureParts({
        header: header(NOW_SEC, oldSig),
        body: BODY,
        secrets: ["whsec_new", "whsec_old"],
        nowSec: NOW_SEC,
      });
      expect(result.ok).toBe(true);
    });

    it("rejects when no secret matches", async () => {
      const result = await verifySignatureParts({
        header: header(NOW_SEC, newSig, oldSig),
        body: BODY,
        secrets: ["whsec_other"],
        nowSec: NOW_SEC,
      });
      expect(result).toEqual({ ok: false, reason: "signature_mismatch" });
    });
  });

  it.each([
    [null, "missing_header"],
    ["", "missing_header"],
    ["v1=abc", "malformed_header"],
    [`t=${NOW_SEC}`, "malformed_header"],
    [`t=soon,v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=${NOW_SEC},t=${NOW_SEC},v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=${NOW_SEC},v1=not-hex`, "malformed_header"],
  ])("rejects header %j as %s", async (value, reason) => {
    const result = await verifySignatureParts({ header: value, body: BODY, secrets: ["s"], nowSec: NOW_SEC });
    expect(result).toEqual({ ok: false, reason });
  });

  it("ignores unknown schemes next to a valid v1, and spaces", async () => {
    const value = ` t=${NOW_SEC}, v0=${"0".repeat(64)}, v1=${sign("s", NOW_SEC, BODY).toUpperCase()}`;
    expect(
      await verifySignatureParts({ header: value, body: BODY, secrets: ["s"], nowSec: NOW_SEC }),
    ).toEqual({ ok: true });
  });

  it("skips unset secrets, as in [env.SECRET, env.SECRET_NEXT] before a rotation", async () => {
    const value = header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY));
    const secrets = ["whsec_a", undefined, null, ""];
    expect(await verifySignatureParts({ header: value, body: BODY, secrets, nowSec: NOW_SEC })).toEqual({
      ok: true,
    });
    expect(
      await verifySignatureParts({ header: value, body: BODY, secrets: [undefined], nowSec: NOW_SEC }),
    ).toEqual({
      ok: false,
      reason: "no_secrets",
    });
  });

  it("refuses to verify without a secret", async () => {
    const value = header(NOW_SEC, sign("", NOW_SEC, BODY));
    expect(await verifySignatureParts({ header: value, body: BODY, secrets: [], nowSec: NOW_SEC })).toEqual({
      ok: false,
      reason: "no_secrets",
    });
  });
});

describe("verifySignature", () => {
  it("verifies a Request and leaves its body readable for the caller", async () => {
    const request = new Request("https://receiver.example/hook", {
      method: "POST",
      headers: { "edgecron-signature": header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)) },
      body: BODY,
    });
    expect(await verifySignature(request, ["whsec_a"], { nowSec: NOW_SEC })).toEqual({ ok: true });
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe(BODY);
  });

  it("rejects a Request without the header", async () => {
    const request = new Request("https://receiver.example/hook", { method: "POST", body: BODY });
    expect(await verifySignature(request, "whsec_a", { nowSec: NOW_SEC })).toEqual({
      ok: false,
      reason: "missing_header",
    });
  });
});
