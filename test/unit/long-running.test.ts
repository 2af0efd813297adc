import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import {
  answerStartsAsyncWork,
  completionBodySchema,
  longRunningSettingsOf,
  MAX_RESULT_BYTES,
} from "../../src/core/runs/long-running";
import { classifyTargetResponse } from "../../src/core/runs/outcome";
import { issueRunToken, runTokenSecretFrom, verifyRunToken } from "../../src/core/runs/run-token";

const RUN_ID = "run_01JDXS3M0000000000000000AB_1764403200000";
const CLAIMS = { shard: 3, attempt: 2, fence: 42 };

describe("answerStartsAsyncWork", () => {
  it.each([
    [202, "true", "response", true],
    [202, " TRUE ", "response", true],
    [202, null, "response", false],
    [202, "false", "response", false],
    [200, "true", "response", false],
    [200, null, "callback", true],
    [204, null, "callback", true],
    [503, "true", "callback", false],
    [302, null, "callback", false],
  ] as const)("status %i, Edgecron-Async %s, completion %s -> %s", (status, header, mode, expected) => {
    expect(answerStartsAsyncWork(status, header, mode)).toBe(expected);
  });

  it("makes classifyTargetResponse answer `accepted`, and leaves failures alone", () => {
    const base = { retryAfterHeader: null, retryOnStatus: [], durationMs: 7, nowMs: 0 };
    expect(classifyTargetResponse({ ...base, status: 202, asyncHeader: "true" })).toEqual({
      kind: "accepted",
      status: 202,
      durationMs: 7,
    });
    expect(classifyTargetResponse({ ...base, status: 202 }).kind).toBe("success");
    expect(classifyTargetResponse({ ...base, status: 500, completion: "callback" }).kind).toBe("retryable");
  });
});

describe("the job fields", () => {
  const job = { name: "n", schedule: { type: "once", delay: "1m" }, target: { url: "https://example.com" } };

  it("default to completion by response and a 5 minute heartbeat timeout", () => {
    const spec = jobCreateSchema.parse(job);
    expect(spec.completion).toBe("response");
    expect(spec.heartbeat_timeout).toBe("5m");
    expect(longRunningSettingsOf(spec)).toEqual({ completion: "response", heartbeatTimeoutMs: 300_000 });
  });

  it("read a spec stored before they existed with the defaults", () => {
    expect(longRunningSettingsOf({})).toEqual({ completion: "response", heartbeatTimeoutMs: 300_000 });
  });

  it.each(["9s", "25h", "soon"])("refuse heartbeat_timeout %s", (value) => {
    const result = jobCreateSchema.safeParse({ ...job, heartbeat_timeout: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["heartbeat_timeout"]);
  });

  it("refuse an unknown completion mode", () => {
    expect(jobCreateSchema.safeParse({ ...job, completion: "poll" }).success).toBe(false);
  });
});

describe("completionBodySchema", () => {
  it("accepts a success with a small result and a retryable failure by default", () => {
    expect(completionBodySchema.parse({ status: "succeeded", result: { rows: 3 } })).toEqual({
      status: "succeeded",
      result: { rows: 3 },
      retryable: true,
    });
    expect(completionBodySchema.parse({ status: "failed", error: "disk full" }).retryable).toBe(true);
  });

  it("refuses a result over 4 KB, an error on a success, and unknown fields", () => {
    const big = { status: "succeeded", result: "x".repeat(MAX_RESULT_BYTES) };
    const paths = (body: unknown) =>
      completionBodySchema.safeParse(body).error?.issues.map((issue) => issue.path.join("."));
    expect(paths(big)).toEqual(["result"]);
    expect(paths({ status: "succeeded", error: "no" })).toEqual(["error"]);
    expect(paths({ status: "done" })).toEqual(["status"]);
    expect(paths({ status: "failed", extra: 1 })).toEqual([""]);
  });
});

describe("run tokens", () => {
  it("verify for the run and attempt they were issued for, and name that attempt", async () => {
    const token = await issueRunToken("secret", RUN_ID, CLAIMS);
    expect(token).toMatch(/^ert1\.3\.2\.42\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyRunToken("secret", RUN_ID, token)).toEqual(CLAIMS);
  });

  it("are refused for another run, another secret, or edited claims", async () => {
    const token = await issueRunToken("secret", RUN_ID, CLAIMS);
    expect(await verifyRunToken("secret", `${RUN_ID}0`, token)).toBeNull();
    expect(await verifyRunToken("other", RUN_ID, token)).toBeNull();
    expect(await verifyRunToken("secret", RUN_ID, token.replace("ert1.3.2.42.", "ert1.3.2.43."))).toBeNull();
    expect(await verifyRunToken("secret", RUN_ID, "ert1.3.2.42.short")).toBeNull();
    expect(await verifyRunToken("secret", RUN_ID, "ek_not_a_run_token")).toBeNull();
  });

  it("use the dedicated secret when set, else a key derived from the admin token (never the token)", async () => {
    expect(await runTokenSecretFrom("dedicated", "admin")).toBe("dedicated");
    const derived = await runTokenSecretFrom(undefined, "admin");
    expect(derived).not.toBe("admin");
    expect(await runTokenSecretFrom("", "admin")).toBe(derived);
    expect(await runTokenSecretFrom(undefined, "admin2")).not.toBe(derived);
  });
});
