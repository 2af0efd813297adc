// OpenTelemetry export through `wrangler dev`: a real OTLP/HTTP receiver (a Node http server)
// gets the spans of a run whose target answered 500 and then 200, and the target got each
// attempt's `traceparent`, in the run's trace, naming that attempt's span.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

interface OtlpValue {
  stringValue?: string;
  intValue?: string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status: { code: number; message?: string };
}
interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: {
    resourceSpans?: {
      resource: { attributes: { key: string; value: OtlpValue }[] };
      scopeSpans: { spans: OtlpSpan[] }[];
    }[];
    resourceLogs?: { scopeLogs: { logRecords: { body: OtlpValue; traceId?: string }[] }[] }[];
  };
}

const received: Received[] = [];
let collector: Server;
const vars: Record<string, string> = { OTEL_SERVICE_NAME: "edgecron-e2e" };

// Registered before the fixture's beforeAll, so the scheduler starts with the collector's address.
beforeAll(async () => {
  collector = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  vars.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  vars.OTEL_EXPORTER_OTLP_HEADERS = "x-collector-key=e2e%20key";
});
afterAll(async () => {
  await new Promise<void>((resolve) => collector?.close(() => resolve()));
});

const scheduler = useScheduler({ tenant: "e2e-otel", vars });

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};
const spansOf = (traceId: string) =>
  received
    .filter((request) => request.path === "/v1/traces")
    .flatMap((request) => request.body.resourceSpans ?? [])
    .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
    .filter((span) => span.traceId === traceId);

describe("e2e: OpenTelemetry traces and logs to a local OTLP/HTTP collector", () => {
  it("exports the spans of a run that retried once, and the target continues the trace", async () => {
    const { api, target, tenantId } = scheduler;
    let calls = 0;
    target.respond((call) => {
      if (!call.path.startsWith("/otel")) return { status: 200 };
      calls += 1;
      return { status: calls === 1 ? 500 : 200 };
    });
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      name: "otel",
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: `${target.url}/otel`, method: "POST" },
      retry: { max_attempts: 3, delay_expression: "200" },
    });
    expect(job.status).toBe(201);
    const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${job.body.id}/trigger`);
    expect(trigger.status).toBe(202);
    const runId = trigger.body.run_id;

    const delivered = await waitUntil(
      () => {
        const mine = target.calls.filter((call) => call.path === "/otel");
        return mine.length >= 2 ? mine : undefined;
      },
      { what: "two attempts at the target" },
    );
    const parents = delivered.map((call) => String(call.headers.traceparent));
    const [traceId] = parents.map((header) => header.split("-")[1]);
    for (const header of parents) expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(parents.map((header) => header.split("-")[1])).toEqual([traceId, traceId]);
    expect(parents[0]).not.toBe(parents[1]);

    const spans = await waitUntil(
      () => {
        const mine = spansOf(traceId as string);
        return mine.some((span) => span.name === "edgecron.run") ? mine : undefined;
      },
      { what: "the run's root span at the collector" },
    );
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [root] = named("edgecron.run");
    expect(root?.parentSpanId ?? "").toBe("");
    expect(root?.status.code).toBe(1);
    for (const span of spans) {
      if (span === root) continue;
      expect(span.parentSpanId).toBe(root?.spanId);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
      expect(attribute(span, "edgecron.run_id")).toBe(runId);
      expect(attribute(span, "edgecron.job_id")).toBe(job.body.id);
      expect(attribute(span, "edgecron.tenant_id")).toBe(tenantId);
      expect(String(attribute(span, "edgecron.idempotency_key"))).toMatch(new RegExp(`^${job.body.id}:`));
    }
    expect(named("edgecron.run.fired")).toHaveLength(1);
    expect(named("edgecron.run.claimed")).toHaveLength(2);
    expect(named("edgecron.run.retried")).toHaveLength(1);
    expect(named("edgecron.run.settled")).toHaveLength(1);
    const attempts = named("edgecron.run.attempt").sort(
      (a, b) => Number(attribute(a, "edgecron.attempt")) - Number(attribute(b, "edgecron.attempt")),
    );
    expect(attempts.map((span) => attribute(span, "http.response.status_code"))).toEqual([500, 200]);
    expect(attempts.map((span) => span.status.code)).toEqual([2, 1]);
    // The target's parent is the attempt's span: its own spans join the run's trace under it.
    expect(attempts.map((span) => `00-${span.traceId}-${span.spanId}-01`)).toEqual(parents);

    const traces = received.find((request) => request.path === "/v1/traces");
    expect(traces?.headers["x-collector-key"]).toBe("e2e key");
    expect(traces?.body.resourceSpans?.[0]?.resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "edgecron-e2e" },
    });
    // The structured log lines go too, the run's own ones in its trace.
    const logs = await waitUntil(
      () => {
        const records = received
          .filter((request) => request.path === "/v1/logs")
          .flatMap((request) => request.body.resourceLogs ?? [])
          .flatMap((resource) => resource.scopeLogs.flatMap((scope) => scope.logRecords));
        return records.some((record) => record.traceId === traceId) ? records : undefined;
      },
      { what: "the run's log lines at the collector" },
    );
    expect(
      logs.filter((record) => record.traceId === traceId).map((record) => record.body.stringValue),
    ).toContain("run.retry_scheduled");
  });
});
