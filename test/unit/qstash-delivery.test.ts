// QStash-format delivery, checked by the official client's own Receiver: what an endpoint
// written for QStash does with every call edgecron makes for a /v2 job.
import { Receiver } from "@upstash/qstash";
import { describe, expect, it } from "vitest";
import type { HttpTarget } from "../../src/core/jobs/job-spec";
import { type QstashDelivery, qstashJobSchema } from "../../src/core/qstash/delivery";
import { QSTASH_SIGNATURE_TTL_SECONDS, qstashSignature } from "../../src/core/qstash/jwt";
import { buildRequest } from "../../src/delivery/target-call";
import type { HttpCallInput } from "../../src/delivery/target-input";

const CURRENT = "sig_current_0123456789";
const NEXT = "sig_next_9876543210";
const NOW_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
const URL_WITH_QUERY = "https://hooks.example.com/p/a//b?x=1&y=%20z";

const receiver = (current = CURRENT, next = NEXT) =>
  new Receiver({ currentSigningKey: current, nextSigningKey: next });

function sign(input: Partial<Parameters<typeof qstashSignature>[1]> = {}) {
  return qstashSignature(crypto.subtle, {
    signingKey: CURRENT,
    url: URL_WITH_QUERY,
    body: '{"hello":"wörld"}',
    nowMs: Date.now(),
    jti: "jwt_test",
    ...input,
  });
}

describe("qstashSignature", () => {
  it("verifies with the Receiver, url and raw body included", async () => {
    const signature = await sign();
    await expect(
      receiver().verify({ signature, body: '{"hello":"wörld"}', url: URL_WITH_QUERY }),
    ).resolves.toBe(true);
  });

  it("verifies with the next key when it signed (after a rotation)", async () => {
    const signature = await sign({ signingKey: NEXT });
    await expect(receiver().verify({ signature, body: '{"hello":"wörld"}' })).resolves.toBe(true);
  });

  it("is accepted by a receiver whose clock is a little behind ours", async () => {
    const ahead = await sign({ nowMs: Date.now() + 2_000 });
    await expect(receiver().verify({ signature: ahead, body: '{"hello":"wörld"}' })).resolves.toBe(true);
  });

  it("is refused for another body, another url, another key or an expired token", async () => {
    const signature = await sign();
    await expect(receiver().verify({ signature, body: '{"hello":"world"}' })).rejects.toThrow(/body hash/);
    await expect(
      receiver().verify({ signature, body: '{"hello":"wörld"}', url: "https://hooks.example.com/p" }),
    ).rejects.toThrow(/subject/);
    await expect(
      receiver("other", "keys").verify({ signature, body: '{"hello":"wörld"}' }),
    ).rejects.toThrow();
    const old = await sign({ nowMs: Date.now() - (QSTASH_SIGNATURE_TTL_SECONDS + 5) * 1000 });
    // Both keys the same: the Receiver's retry with the next key reports the first key's reason.
    await expect(
      receiver(CURRENT, CURRENT).verify({ signature: old, body: '{"hello":"wörld"}' }),
    ).rejects.toThrow(/exp/);
  });

  it("carries the claims QStash documents", async () => {
    const signature = await sign({ nowMs: NOW_MS, body: "" });
    const [, payload] = signature.split(".");
    const claims = JSON.parse(atob((payload ?? "").replaceAll("-", "+").replaceAll("_", "/")));
    expect(claims).toEqual({
      iss: "Upstash",
      sub: URL_WITH_QUERY,
      iat: NOW_MS / 1000,
      nbf: NOW_MS / 1000 - 5,
      exp: NOW_MS / 1000 + 300,
      jti: "jwt_test",
      // SHA-256 of the empty body, base64url without padding.
      body: "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU",
    });
  });
});

function callInput(target: Partial<HttpTarget>, qstash?: Partial<QstashDelivery>): HttpCallInput {
  return {
    target: { type: "http", url: URL_WITH_QUERY, method: "POST", headers: {}, body: "raw body", ...target },
    runId: "run_01",
    jobId: "job_01",
    scheduledAtMs: NOW_MS,
    attempt: 1,
    idempotencyKey: "job_01:2026-12-01T12:00:00.000Z",
    secrets: [CURRENT, NEXT],
    timeoutMs: 30_000,
    allowPrivate: true,
    nowMs: Date.now(),
    ...(qstash ? { qstash: qstashJobSchema.parse(qstash) } : {}),
  };
}

describe("buildRequest for a QStash-format job", () => {
  it("signs the exact body it sends and heads the call as QStash does", async () => {
    const request = await buildRequest(
      callInput({ body: "raw body" }, { schedule_id: "scd_1", caller_ip: "192.0.2.7" }),
    );
    const body = await request.text();
    expect(body).toBe("raw body");
    const signature = request.headers.get("upstash-signature") ?? "";
    await expect(receiver().verify({ signature, body, url: URL_WITH_QUERY })).resolves.toBe(true);
    expect(request.headers.get("upstash-message-id")).toBe("run_01");
    expect(request.headers.get("upstash-retried")).toBe("0");
    expect(request.headers.get("upstash-schedule-id")).toBe("scd_1");
    expect(request.headers.get("upstash-caller-ip")).toBe("192.0.2.7");
    expect(request.headers.get("user-agent")).toBe("Upstash-QStash");
    // Our own headers stay beside QStash's.
    expect(request.headers.get("edgecron-run-id")).toBe("run_01");
    expect(request.headers.get("edgecron-signature")).toMatch(/^t=\d+,v2=/);
  });

  it("counts Upstash-Retried from 0 and uses the run id as the message id of a schedule fire", async () => {
    const request = await buildRequest({
      ...callInput({ method: "GET" }, { schedule_id: "scd_1" }),
      attempt: 3,
    });
    expect(request.headers.get("upstash-retried")).toBe("2");
    expect(request.headers.get("upstash-message-id")).toBe("run_01");
    const signature = request.headers.get("upstash-signature") ?? "";
    await expect(receiver().verify({ signature, body: "" })).resolves.toBe(true);
  });

  it("signs with the current secret only, so a Receiver holding only the next one refuses it", async () => {
    const request = await buildRequest(callInput({}, {}));
    // A published message (no schedule, no stored id) is its job.
    expect(request.headers.get("upstash-message-id")).toBe("job_01");
    const signature = request.headers.get("upstash-signature") ?? "";
    await expect(receiver(NEXT, "unrelated").verify({ signature, body: "raw body" })).rejects.toThrow();
  });

  it("sends no Upstash headers for a job of the /v1 API", async () => {
    const request = await buildRequest(callInput({}));
    expect([...request.headers.keys()].filter((name) => name.startsWith("upstash-"))).toEqual([]);
    expect(request.headers.get("user-agent")).toBe("edgecron/0.1");
  });
});
