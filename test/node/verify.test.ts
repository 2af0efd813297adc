import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalSignatureString, verifySignature, verifySignatureParts } from "../../src/client/verify";

const NOW_SEC = 1_764_403_200;
const BODY = '{"sub":42,"note":"grüße"}';
const URL_A = "https://receiver.example/hook?tenant=7";
/** The signed request parts besides t and the body, as verifySignatureParts takes them. */
const PARTS = {
  method: "POST",
  url: URL_A,
  idempotencyKey: "job_1:2026-12-01T00:00:00.000Z",
  runId: "run_1",
  attempt: "1",
};

/** Signs independently of the code under test: node:crypto and the documented format, not WebCrypto. */
function sign(secret: string, timestampSec: number, body: string, parts = PARTS): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  const message = [
    "v2",
    timestampSec,
    parts.method,
    parts.url,
    parts.idempotencyKey,
    parts.runId,
    parts.attempt,
    bodyHash,
  ].join("\n");
  return createHmac("sha256", secret).update(message).digest("hex");
}

function header(timestampSec: number, ...signatures: string[]): string {
  return [`t=${timestampSec}`, ...signatures.map((s) => `v2=${s}`)].join(",");
}

describe("verifySignatureParts", () => {
  it("accepts a signature made with the secret over the v2 canonical string", async () => {
    const result = await verifySignatureParts({
      ...PARTS,
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: BODY,
      secrets: "whsec_a",
      nowSec: NOW_SEC + 10,
    });
    expect(result).toEqual({ ok: true });
  });

  it("accepts the raw bytes of the body as well as its text", async () => {
    const result = await verifySignatureParts({
      ...PARTS,
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: new TextEncoder().encode(BODY),
      secrets: ["whsec_a"],
      nowSec: NOW_SEC,
    });
    expect(result.ok).toBe(true);
  });

  it("rejects a tampered body", async () => {
    const result = await verifySignatureParts({
      ...PARTS,
      header: header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY)),
      body: BODY.replace("42", "43"),
      secrets: ["whsec_a"],
      nowSec: NOW_SEC,
    });
    expect(result).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("rejects a tampered timestamp even inside the window", async () => {
    const result = await verifySignatureParts({
      ...PARTS,
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
      verifySignatureParts({
        ...PARTS,
        header: signed,
        body: BODY,
        secrets: ["whsec_a"],
        nowSec,
        toleranceSec,
      });
    expect(await at(NOW_SEC + 300)).toEqual({ ok: true });
    expect(await at(NOW_SEC + 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await at(NOW_SEC - 301)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(await at(NOW_SEC + 30, 10)).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
  });

  it("uses the real clock when nowSec is not given", async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const fresh = await verifySignatureParts({
      ...PARTS,
      header: header(nowSec, sign("s", nowSec, BODY)),
      body: BODY,
      secrets: "s",
    });
    const stale = await verifySignatureParts({
      ...PARTS,
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

    it("accepts when any of the receiver's secrets matches any v2", async () => {
      const both = header(NOW_SEC, newSig, oldSig);
      for (const secrets of [
        ["whsec_old"],
        ["whsec_new"],
        ["whsec_other", "whsec_new"],
        ["whsec_old", "whsec_new"],
      ]) {
        expect(
          await verifySignatureParts({ ...PARTS, header: both, body: BODY, secrets, nowSec: NOW_SEC }),
        ).toEqual({
          ok: true,
        });
      }
    });

    it("accepts a header signed with one secret by a receiver holding old and new", async () => {
      const result = await verifySignatureParts({
        ...PARTS,
        header: header(NOW_SEC, oldSig),
        body: BODY,
        secrets: ["whsec_new", "whsec_old"],
        nowSec: NOW_SEC,
      });
      expect(result.ok).toBe(true);
    });

    it("rejects when no secret matches", async () => {
      const result = await verifySignatureParts({
        ...PARTS,
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
    ["v2=abc", "malformed_header"],
    [`t=${NOW_SEC}`, "malformed_header"],
    [`t=soon,v2=${"a".repeat(64)}`, "malformed_header"],
    [`t=${NOW_SEC},t=${NOW_SEC},v2=${"a".repeat(64)}`, "malformed_header"],
    [`t=${NOW_SEC},v2=not-hex`, "malformed_header"],
    [`t=${NOW_SEC},v1=${"a".repeat(64)}`, "malformed_header"],
  ])("rejects header %j as %s", async (value, reason) => {
    const result = await verifySignatureParts({
      ...PARTS,
      header: value,
      body: BODY,
      secrets: ["s"],
      nowSec: NOW_SEC,
    });
    expect(result).toEqual({ ok: false, reason });
  });

  it("ignores other schemes next to a valid v2, and spaces", async () => {
    const value = ` t=${NOW_SEC}, v1=${"0".repeat(64)}, v3=${"0".repeat(64)}, v2=${sign("s", NOW_SEC, BODY).toUpperCase()}`;
    expect(
      await verifySignatureParts({ ...PARTS, header: value, body: BODY, secrets: ["s"], nowSec: NOW_SEC }),
    ).toEqual({ ok: true });
  });

  it("skips unset secrets, as in [env.SECRET, env.SECRET_NEXT] before a rotation", async () => {
    const value = header(NOW_SEC, sign("whsec_a", NOW_SEC, BODY));
    const secrets = ["whsec_a", undefined, null, ""];
    expect(
      await verifySignatureParts({ ...PARTS, header: value, body: BODY, secrets, nowSec: NOW_SEC }),
    ).toEqual({
      ok: true,
    });
    expect(
      await verifySignatureParts({
        ...PARTS,
        header: value,
        body: BODY,
        secrets: [undefined],
        nowSec: NOW_SEC,
      }),
    ).toEqual({
      ok: false,
      reason: "no_secrets",
    });
  });

  it("refuses to verify without a secret", async () => {
    const value = header(NOW_SEC, sign("", NOW_SEC, BODY));
    expect(
      await verifySignatureParts({ ...PARTS, header: value, body: BODY, secrets: [], nowSec: NOW_SEC }),
    ).toEqual({
      ok: false,
      reason: "no_secrets",
    });
  });
});

describe("what a v2 signature binds", () => {
  const signed = {
    ...PARTS,
    header: header(NOW_SEC, sign("s", NOW_SEC, BODY)),
    body: BODY,
    secrets: "s",
    nowSec: NOW_SEC,
  };

  it.each([
    ["another URL", { url: "https://receiver.example/other?tenant=7" }],
    ["another query", { url: "https://receiver.example/hook?tenant=8" }],
    ["another host", { url: "https://attacker.example/hook?tenant=7" }],
    ["another Idempotency-Key", { idempotencyKey: "job_1:2026-12-02T00:00:00.000Z" }],
    ["another run", { runId: "run_2" }],
    ["another attempt", { attempt: "2" }],
    ["another method", { method: "PUT" }],
    ["no Idempotency-Key", { idempotencyKey: null }],
  ])("refuses the captured call replayed with %s", async (_label, change) => {
    expect(await verifySignatureParts({ ...signed, ...change })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("normalizes what does not reach the receiver: method case, a #fragment, a default port", async () => {
    for (const change of [
      { method: "post" },
      { url: `${URL_A}#top` },
      { url: "https://RECEIVER.example:443/hook?tenant=7" },
      { attempt: 1 },
    ]) {
      expect(await verifySignatureParts({ ...signed, ...change })).toEqual({ ok: true });
    }
  });

  it("refuses a v1 header (HMAC of t.body), which bound nothing but the body", async () => {
    const v1 = createHmac("sha256", "s").update(`${NOW_SEC}.${BODY}`).digest("hex");
    expect(await verifySignatureParts({ ...signed, header: `t=${NOW_SEC},v1=${v1}` })).toEqual({
      ok: false,
      reason: "malformed_header",
    });
  });

  it("documents its canonical string", () => {
    expect(canonicalSignatureString(NOW_SEC, PARTS, "ab")).toBe(
      `v2\n${NOW_SEC}\nPOST\n${URL_A}\njob_1:2026-12-01T00:00:00.000Z\nrun_1\n1\nab`,
    );
  });
});

describe("verifySignature", () => {
  const signedHeaders = (signature: string) => ({
    "edgecron-signature": header(NOW_SEC, signature),
    "idempotency-key": PARTS.idempotencyKey,
    "edgecron-run-id": PARTS.runId,
    "edgecron-attempt": PARTS.attempt,
  });

  it("verifies a Request and leaves its body readable for the caller", async () => {
    const request = new Request(URL_A, {
      method: "POST",
      headers: signedHeaders(sign("whsec_a", NOW_SEC, BODY)),
      body: BODY,
    });
    expect(await verifySignature(request, ["whsec_a"], { nowSec: NOW_SEC })).toEqual({ ok: true });
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe(BODY);
  });

  it("reads the method, URL and signed headers from the Request: a replay to another URL or key fails", async () => {
    const headers = signedHeaders(sign("whsec_a", NOW_SEC, BODY));
    const at = (url: string, extra: Record<string, string> = {}) =>
      verifySignature(
        new Request(url, { method: "POST", headers: { ...headers, ...extra }, body: BODY }),
        "whsec_a",
        {
          nowSec: NOW_SEC,
        },
      );
    const mismatch = { ok: false, reason: "signature_mismatch" };
    expect(await at("https://receiver.example/other")).toEqual(mismatch);
    expect(await at(URL_A, { "idempotency-key": "another" })).toEqual(mismatch);
    expect(await at(URL_A, { "edgecron-attempt": "3" })).toEqual(mismatch);
    expect(await at(URL_A)).toEqual({ ok: true });
  });

  it("rejects a Request without the header", async () => {
    const request = new Request(URL_A, { method: "POST", body: BODY });
    expect(await verifySignature(request, "whsec_a", { nowSec: NOW_SEC })).toEqual({
      ok: false,
      reason: "missing_header",
    });
  });
});
