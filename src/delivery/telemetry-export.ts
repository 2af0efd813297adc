// OpenTelemetry export off the hot path. With no OTEL_EXPORTER_OTLP_ENDPOINT `telemetryOf` is
// null and nothing below runs: no span is built and no log line kept. With one, each attempt's
// spans (src/core/trace/run-spans.ts) and every structured log line this isolate prints are
// buffered, and `exportTelemetry` sends what is buffered as OTLP/HTTP JSON under ctx.waitUntil
// when a consumer batch ends (and when a handed-off call reports), so a call never waits for the
// collector. A collector that is down loses that batch's telemetry, never a run.

import { type LogLine, otlpLogs, otlpTraces } from "../core/trace/otlp";
import { type OtlpConfig, otlpConfigOf } from "../core/trace/otlp-config";
import { attemptSpans, type TraceSpan } from "../core/trace/run-spans";
import { setLogLineSink } from "../log";
import type { Reported } from "./shard-batches";

/** What a buffer may hold between exports; past it the oldest go (a collector too slow to keep up). */
const MAX_BUFFERED = 5_000;
const EXPORT_TIMEOUT_MS = 10_000;

let cachedFor: string | undefined;
let cachedConfig: OtlpConfig | null = null;
const spans: TraceSpan[] = [];
const lines: LogLine[] = [];

/** The isolate's telemetry settings, read once per endpoint; null when nothing is exported. */
export function telemetryOf(env: Env): OtlpConfig | null {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const key = `${endpoint}\n${env.OTEL_EXPORTER_OTLP_HEADERS ?? ""}\n${env.OTEL_SERVICE_NAME}`;
  if (key === cachedFor) return cachedConfig;
  cachedFor = key;
  cachedConfig = otlpConfigOf({
    endpoint,
    headers: env.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: env.OTEL_SERVICE_NAME,
  });
  setLogLineSink(cachedConfig === null ? null : (line) => bounded(lines, line));
  return cachedConfig;
}

/** Buffers the spans of one attempt the shard has decided about. */
export function recordAttempt(
  { run, outcome, decision }: Reported,
  times: { claimStartMs: number; claimEndMs: number; callStartMs: number },
): void {
  const facts = {
    runId: run.runId,
    jobId: run.jobId,
    tenantId: run.tenantId,
    attempt: run.attempt,
    idempotencyKey: run.idempotencyKey,
    scheduledAtMs: run.scheduledAtMs,
    ...times,
    callEndMs: times.callStartMs + outcome.durationMs,
    outcome: {
      kind: outcome.kind,
      status: outcome.status,
      ...("error" in outcome ? { error: outcome.error } : {}),
    },
    decision: decision?.ok
      ? {
          state: decision.state,
          ...(decision.nextAttemptAtMs === undefined ? {} : { nextAttemptAtMs: decision.nextAttemptAtMs }),
        }
      : null,
    decidedAtMs: Date.now(),
  };
  for (const span of attemptSpans(facts)) bounded(spans, span);
}

/** Sends everything buffered (spans, then log lines) under waitUntil; a no-op when nothing is. */
export function exportTelemetry(config: OtlpConfig | null, ctx: ExecutionContext): void {
  if (config === null) return;
  if (spans.length > 0) {
    ctx.waitUntil(post(config, config.tracesUrl, otlpTraces(config.serviceName, spans.splice(0))));
  }
  if (lines.length > 0) {
    ctx.waitUntil(post(config, config.logsUrl, otlpLogs(config.serviceName, lines.splice(0))));
  }
}

async function post(config: OtlpConfig, url: string, body: unknown): Promise<void> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...config.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) exportFailed(url, `collector answered ${response.status}`);
  } catch (error) {
    exportFailed(url, error instanceof Error ? error.message : String(error));
  }
}

/** Printed, not logged through logEvent: a failed export must not feed the next export. */
function exportFailed(url: string, error: string): void {
  console.log(JSON.stringify({ ts: new Date().toISOString(), event: "telemetry.export_failed", url, error }));
}

function bounded<T>(buffer: T[], item: T): void {
  if (buffer.length >= MAX_BUFFERED) buffer.shift();
  buffer.push(item);
}
