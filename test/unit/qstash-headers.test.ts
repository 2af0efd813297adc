import { describe, expect, it } from "vitest";
import { parseMessageHeaders, parseQstashDurationMs } from "../../src/api/qstash/headers";
import { DEFAULT_RETRY_DELAY_EXPRESSION } from "../../src/api/qstash/messages/message-job";
import {
  parseRetryDelayExpression,
  retryDelayFromExpressionMs,
} from "../../src/core/runs/retry-delay-expression";

const NOW_MS = Date.parse("2026-12-01T12:00:00Z");

describe("parseRetryDelayExpression", () => {
  it.each([
    ["1000", 0, 1000],
    ["pow(2, retried) * 1000", 3, 8000],
    ["1000 * (1 + retried)", 2, 3000],
    ["min(86400000, exp(retried) * 1000)", 1, Math.round(Math.E * 1000)],
    ["max(10, 5, 7) - -1", 0, 11],
    ["10 % 4 + sqrt(16) + abs(-1) + floor(1.5) + ceil(0.2) + round(0.6)", 0, 10],
    ["1e3 / 2", 0, 500],
  ])("evaluates %s with retried=%i to %i ms", (source, retried, expectedMs) => {
    const parsed = parseRetryDelayExpression(source);
    expect(parsed.ok && parsed.expression.delayMs(retried)).toBe(expectedMs);
  });

  it("clamps to [0, one day] and turns NaN into 0", () => {
    expect(retryDelayFromExpressionMs("0 - 5000", 1)).toBe(0);
    expect(retryDelayFromExpressionMs("pow(10, 12)", 1)).toBe(86_400_000);
    expect(retryDelayFromExpressionMs("0 / 0", 1)).toBe(0);
  });

  it("gives QStash's default backoff: 12 s, 2 min 28 s, 30 min, 6 h, then a day", () => {
    const delaysS = [1, 2, 3, 4, 5].map((attempt) =>
      Math.round((retryDelayFromExpressionMs(DEFAULT_RETRY_DELAY_EXPRESSION, attempt) ?? 0) / 1000),
    );
    expect(delaysS).toEqual([12, 148, 1808, 22026, 86400]);
  });

  it("passes retried = attempt - 1 (the first retry follows retried 0)", () => {
    expect(retryDelayFromExpressionMs("1000 + retried", 1)).toBe(1000);
    expect(retryDelayFromExpressionMs("1000 + retried", 3)).toBe(1002);
  });

  it.each([
    ["", "is empty"],
    ["1000 +", "ends too early"],
    ["pow(2)", "pow() takes 2 arguments"],
    ["process.exit(1)", 'unexpected character "."'],
    ["alert(1)", 'unknown name "alert"'],
    ["(1, 2)", 'expected ")"'],
    ["1 2", 'unexpected "2"'],
  ])("refuses %j (%s)", (source, fragment) => {
    const parsed = parseRetryDelayExpression(source);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(fragment);
  });
});

describe("parseQstashDurationMs", () => {
  it.each([
    ["10s", 10_000],
    ["2h", 7_200_000],
    ["1h30m", 5_400_000],
    ["45", 45_000],
    ["1d", 86_400_000],
    ["10x", null],
    ["", null],
  ])("%j -> %s", (value, expectedMs) => {
    expect(parseQstashDurationMs(value)).toBe(expectedMs);
  });
});

describe("parseMessageHeaders", () => {
  it("reads every header, typed, with QStash's defaults", () => {
    const result = parseMessageHeaders(
      new Headers({
        "Upstash-Method": "put",
        "Upstash-Delay": "10s",
        "Upstash-Retries": "2",
        "Upstash-Retry-Delay": "pow(2, retried) * 1000",
        "Upstash-Timeout": "30s",
        "Upstash-Deduplication-Id": "d-1",
        "Upstash-Content-Based-Deduplication": "true",
        "Upstash-Label": "a, b,a",
        "Upstash-Forward-X-Trace": "t-1",
        "Upstash-Flow-Control-Key": "k",
        "Upstash-Flow-Control-Value": "parallelism=2, rate=10, period=1m",
        "Upstash-Callback": "https://cb.example/ok",
        "Upstash-Failure-Callback": "https://cb.example/fail",
        "Content-Type": "text/plain",
        Authorization: "Bearer secret",
        "Upstash-Telemetry-Sdk": "upstash-qstash-js@2.12.0",
      }),
      NOW_MS,
    );
    expect(result).toEqual({
      ok: true,
      headers: {
        method: "PUT",
        notBeforeMs: NOW_MS + 10_000,
        retries: 2,
        retryDelayExpression: "pow(2, retried) * 1000",
        timeoutMs: 30_000,
        deduplicationId: "d-1",
        contentBasedDeduplication: true,
        labels: ["a", "b"],
        forwardHeaders: { "x-trace": "t-1", "content-type": "text/plain" },
        flowControl: { key: "k", parallelism: 2, rate: 10, periodSeconds: 60 },
        callback: "https://cb.example/ok",
        failureCallback: "https://cb.example/fail",
        callbackHeaders: {},
        failureCallbackHeaders: {},
        cron: null,
        scheduleId: null,
        queueName: null,
      },
    });
  });

  it("turns callback sub-headers into the callbacks' own headers, and drops forwarded framing headers", () => {
    const result = parseMessageHeaders(
      new Headers({
        "upstash-callback": "https://cb.example/ok",
        "upstash-callback-forward-x-step": "3",
        "upstash-callback-workflow-runid": "wfr_1",
        "upstash-callback-feature-set": "LazyFetch",
        "upstash-callback-retries": "5",
        "upstash-failure-callback-forward-upstash-workflow-is-failure": "true",
        "upstash-failure-callback-forward-host": "app.example",
        "upstash-forward-host": "app.example",
        "upstash-forward-content-length": "10",
        "upstash-forward-edgecron-run-id": "run_1",
        "upstash-forward-upstash-signature": "old",
        "upstash-forward-x-kept": "1",
      }),
      NOW_MS,
    );
    if (!result.ok) throw new Error("expected the headers to parse");
    expect(result.headers.callbackHeaders).toEqual({
      "x-step": "3",
      "upstash-workflow-runid": "wfr_1",
      "upstash-feature-set": "LazyFetch",
    });
    expect(result.headers.failureCallbackHeaders).toEqual({ "upstash-workflow-is-failure": "true" });
    expect(result.headers.forwardHeaders).toEqual({ "x-kept": "1" });
  });

  it("defaults to POST, now and 3 retries, and Not-Before wins over Delay", () => {
    const plain = parseMessageHeaders(new Headers(), NOW_MS);
    expect(plain.ok && [plain.headers.method, plain.headers.notBeforeMs, plain.headers.retries]).toEqual([
      "POST",
      null,
      3,
    ]);
    const both = parseMessageHeaders(
      new Headers({ "Upstash-Delay": "1h", "Upstash-Not-Before": String(NOW_MS / 1000 + 5) }),
      NOW_MS,
    );
    expect(both.ok && both.headers.notBeforeMs).toBe(NOW_MS + 5_000);
  });

  it("names every bad header at once", () => {
    const result = parseMessageHeaders(
      new Headers({
        "Upstash-Method": "BREW",
        "Upstash-Delay": "soon",
        "Upstash-Not-Before": "yesterday",
        "Upstash-Retries": "-1",
        "Upstash-Retry-Delay": "eval(1)",
        "Upstash-Timeout": "1h",
        "Upstash-Content-Based-Deduplication": "yes",
        "Upstash-Flow-Control-Value": "rate=1",
        "Upstash-Callback": "ftp://x",
      }),
      NOW_MS,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((error) => error.header)).toEqual([
        "Upstash-Method",
        "Upstash-Delay",
        "Upstash-Not-Before",
        "Upstash-Retries",
        "Upstash-Retry-Delay",
        "Upstash-Timeout",
        "Upstash-Content-Based-Deduplication",
        "Upstash-Flow-Control-Key",
        "Upstash-Callback",
      ]);
    }
  });

  it("refuses a flow-control value without limits", () => {
    const result = parseMessageHeaders(
      new Headers({ "Upstash-Flow-Control-Key": "k", "Upstash-Flow-Control-Value": "period=1s" }),
      NOW_MS,
    );
    expect(!result.ok && result.errors[0]?.header).toBe("Upstash-Flow-Control-Value");
  });
});
