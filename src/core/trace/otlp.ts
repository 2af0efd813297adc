// OTLP/HTTP JSON bodies (opentelemetry-proto's JSON mapping: hex ids, nanosecond times as
// decimal strings, attributes as typed key/value pairs) for spans and structured log lines.
import type { SpanAttributeValue, TraceSpan } from "./run-spans";
import { traceIdOf } from "./trace-ids";

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean };
interface KeyValue {
  key: string;
  value: AnyValue;
}

const SCOPE = { name: "edgecron" };
const SPAN_KIND = { internal: 1, client: 3 } as const;
const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;
const SEVERITY = { info: { number: 9, text: "INFO" }, warn: { number: 13, text: "WARN" } } as const;

/** One structured log line as src/log.ts printed it: `ts` (ISO), `event`, then its fields. */
export type LogLine = Record<string, unknown>;

export function otlpTraces(serviceName: string, spans: readonly TraceSpan[]) {
  return {
    resourceSpans: [
      {
        resource: resourceOf(serviceName),
        scopeSpans: [{ scope: SCOPE, spans: spans.map(otlpSpan) }],
      },
    ],
  };
}

/**
 * Log records: the event is the body, every other field an attribute (objects as JSON). A line
 * naming a run carries that run's trace id, so a collector shows it beside the run's spans.
 */
export function otlpLogs(serviceName: string, lines: readonly LogLine[]) {
  return {
    resourceLogs: [
      {
        resource: resourceOf(serviceName),
        scopeLogs: [{ scope: SCOPE, logRecords: lines.map(otlpLogRecord) }],
      },
    ],
  };
}

function otlpSpan(span: TraceSpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: SPAN_KIND[span.kind],
    startTimeUnixNano: nanosOf(span.startMs),
    endTimeUnixNano: nanosOf(span.endMs),
    attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: anyValue(value) })),
    status: {
      code: STATUS_CODE[span.status],
      ...(span.statusMessage === undefined ? {} : { message: span.statusMessage }),
    },
  };
}

function otlpLogRecord(line: LogLine) {
  const { ts, event, ...fields } = line;
  const timeMs = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
  const severity =
    typeof event === "string" && /fail|error|refused|lost/.test(event) ? SEVERITY.warn : SEVERITY.info;
  const attributes: KeyValue[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    attributes.push({ key, value: anyValue(isScalar(value) ? value : JSON.stringify(value)) });
  }
  return {
    ...(Number.isNaN(timeMs) ? {} : { timeUnixNano: nanosOf(timeMs) }),
    severityNumber: severity.number,
    severityText: severity.text,
    body: { stringValue: String(event) },
    attributes,
    ...(typeof fields.run_id === "string" ? { traceId: traceIdOf(fields.run_id) } : {}),
  };
}

function resourceOf(serviceName: string) {
  return { attributes: [{ key: "service.name", value: { stringValue: serviceName } }] };
}

function isScalar(value: unknown): value is SpanAttributeValue {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function anyValue(value: SpanAttributeValue): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/** Milliseconds to OTLP's nanoseconds, as the decimal string the JSON mapping uses for 64-bit ints. */
function nanosOf(ms: number): string {
  return `${Math.round(ms)}000000`;
}
