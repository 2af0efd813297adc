import { describe, expect, it } from "vitest";
import { otlpLogs, otlpTraces } from "../../src/core/trace/otlp";
import { otlpConfigOf, parseOtlpHeaders } from "../../src/core/trace/otlp-config";
import { type AttemptFacts, attemptSpans } from "../../src/core/trace/run-spans";
import { spanIdOf, traceIdOf, traceparentOf } from "../../src/core/trace/trace-ids";

const facts = (over: Partial<AttemptFacts> = {}): AttemptFacts => ({
  runId: "run_1",
  jobId: "job_1",
  tenantId: "ten_1",
  attempt: 1,
  idempotencyKey: "job_1:1000",
  scheduledAtMs: 1_000,
  claimStartMs: 1_010,
  claimEndMs: 1_020,
  callStartMs: 1_030,
  callEndMs: 1_080,
  outcome: { kind: "retryable", status: 500, error: "target answered 500" },
  decision: { state: "RETRYING", nextAttemptAtMs: 2_000 },
  decidedAtMs: 1_090,
  ...over,
});

describe("trace ids", () => {
  it("derives W3C ids from the run id alone, distinct per run, span and attempt", () => {
    expect(traceIdOf("run_1")).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf("run_1")).toBe(traceIdOf("run_1"));
    expect(traceIdOf("run_2")).not.toBe(traceIdOf("run_1"));
    expect(spanIdOf("run_1", "attempt", 1)).toMatch(/^[0-9a-f]{16}$/);
    const ids = new Set(
      (["run", "fired", "claimed", "attempt", "retried", "settled"] as const).flatMap((name) => [
        spanIdOf("run_1", name, 1),
        spanIdOf("run_1", name, 2),
      ]),
    );
    expect(ids.size).toBe(12);
    expect(traceparentOf("run_1", 2)).toBe(`00-${traceIdOf("run_1")}-${spanIdOf("run_1", "attempt", 2)}-01`);
  });
});

describe("attempt spans", () => {
  it("a retried first attempt: fired, claimed, the call with its status, retried; all children of the run", () => {
    const spans = attemptSpans(facts());
    expect(spans.map((span) => span.name)).toEqual([
      "edgecron.run.fired",
      "edgecron.run.claimed",
      "edgecron.run.attempt",
      "edgecron.run.retried",
    ]);
    for (const span of spans) {
      expect(span.traceId).toBe(traceIdOf("run_1"));
      expect(span.parentSpanId).toBe(spanIdOf("run_1", "run"));
      expect(span.attributes).toMatchObject({
        "edgecron.job_id": "job_1",
        "edgecron.tenant_id": "ten_1",
        "edgecron.run_id": "run_1",
        "edgecron.attempt": 1,
        "edgecron.idempotency_key": "job_1:1000",
      });
    }
    const call = spans[2];
    expect(call).toMatchObject({ kind: "client", status: "error", startMs: 1_030, endMs: 1_080 });
    expect(call?.spanId).toBe(spanIdOf("run_1", "attempt", 1));
    expect(call?.attributes["http.response.status_code"]).toBe(500);
    expect(spans[3]).toMatchObject({ startMs: 1_080, endMs: 2_000 });
  });

  it("the settling attempt adds settled and the root span, from the instant to the settling", () => {
    const spans = attemptSpans(
      facts({
        attempt: 2,
        outcome: { kind: "success", status: 200 },
        decision: { state: "SUCCEEDED" },
        decidedAtMs: 3_000,
      }),
    );
    expect(spans.map((span) => span.name)).toEqual([
      "edgecron.run.claimed",
      "edgecron.run.attempt",
      "edgecron.run.settled",
      "edgecron.run",
    ]);
    const root = spans[3];
    expect(root).toMatchObject({
      spanId: spanIdOf("run_1", "run"),
      status: "ok",
      startMs: 1_000,
      endMs: 3_000,
    });
    expect(root?.parentSpanId).toBeUndefined();
    expect(spans[1]).toMatchObject({ status: "ok", spanId: spanIdOf("run_1", "attempt", 2) });
  });

  it("a dead-lettered run's root span is an error; an undelivered report settles nothing", () => {
    const dead = attemptSpans(
      facts({
        outcome: { kind: "permanent", status: 404, error: "404" },
        decision: { state: "DEAD_LETTERED" },
      }),
    );
    expect(dead.at(-1)).toMatchObject({ name: "edgecron.run", status: "error" });
    const unknown = attemptSpans(facts({ attempt: 2, decision: null }));
    expect(unknown.map((span) => span.name)).toEqual(["edgecron.run.claimed", "edgecron.run.attempt"]);
  });
});

describe("OTLP JSON", () => {
  it("spans: hex ids, nanosecond strings, typed attributes, status codes", () => {
    const body = otlpTraces("svc", attemptSpans(facts()));
    const resource = body.resourceSpans[0];
    expect(resource?.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "svc" } }]);
    const call = resource?.scopeSpans[0]?.spans.find((span) => span.name === "edgecron.run.attempt");
    expect(call).toMatchObject({
      kind: 3,
      startTimeUnixNano: "1030000000",
      endTimeUnixNano: "1080000000",
      status: { code: 2, message: "target answered 500" },
    });
    expect(call?.attributes).toContainEqual({ key: "http.response.status_code", value: { intValue: "500" } });
    expect(call?.attributes).toContainEqual({ key: "edgecron.run_id", value: { stringValue: "run_1" } });
  });

  it("logs: the event is the body, fields are attributes, a run's line carries its trace id", () => {
    const body = otlpLogs("svc", [
      { ts: "2026-01-01T00:00:00.000Z", event: "run.outcome", run_id: "run_1", attempt: 1, extra: { a: 1 } },
      { ts: "2026-01-01T00:00:00.000Z", event: "run.claim_failed", shard: 3 },
    ]);
    const [outcome, failed] = body.resourceLogs[0]?.scopeLogs[0]?.logRecords ?? [];
    expect(outcome).toMatchObject({
      body: { stringValue: "run.outcome" },
      timeUnixNano: `${Date.parse("2026-01-01T00:00:00.000Z")}000000`,
      severityText: "INFO",
      traceId: traceIdOf("run_1"),
    });
    expect(outcome?.attributes).toContainEqual({ key: "extra", value: { stringValue: '{"a":1}' } });
    expect(failed).toMatchObject({ severityText: "WARN" });
    expect(failed).not.toHaveProperty("traceId");
  });
});

describe("OTLP settings", () => {
  it("no endpoint, no export; a base endpoint gets the signal paths; headers as the SDKs read them", () => {
    expect(otlpConfigOf({ endpoint: "" })).toBeNull();
    expect(otlpConfigOf({})).toBeNull();
    expect(otlpConfigOf({ endpoint: "not a url" })).toBeNull();
    expect(otlpConfigOf({ endpoint: "http://c:4318/", headers: "x-api-key=a%20b", serviceName: "" })).toEqual(
      {
        tracesUrl: "http://c:4318/v1/traces",
        logsUrl: "http://c:4318/v1/logs",
        headers: { "x-api-key": "a b" },
        serviceName: "edgecron",
      },
    );
    expect(parseOtlpHeaders("a=1, b = 2,bad,=x")).toEqual({ a: "1", b: "2" });
  });
});
