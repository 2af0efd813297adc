// Structured logs: one JSON line per event, so Workers Logs / `wrangler tail` can filter on
// fields. Secrets and payloads never reach a log line: denylisted field names are dropped at any
// depth before printing.

/** Field-name words that mark a secret or a payload (`authorization`, `api_key`, `signingSecret`). */
const DENIED_WORDS = new Set([
  "authorization",
  "token",
  "key",
  "secret",
  "body",
  "headers",
  "password",
  "cookie",
]);
/** Names that contain a denied word but carry nothing secret. */
const ALLOWED_NAMES = new Set(["idempotency_key"]);
const MAX_DEPTH = 6;

/**
 * Prints `{"ts": ISO, "event": ..., ...fields}` as one line via console.log.
 * @example logEvent("run.dispatched", { job_id, run_id, lateness_ms: 12 })
 */
export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  const { ts: _ts, event: _event, ...rest } = scrub(fields, 0) as Record<string, unknown>;
  // `ts` and `event` are ours: a field of the same name cannot replace them.
  const line = { ts: new Date().toISOString(), event, ...rest };
  console.log(JSON.stringify(line));
  if (lineSink !== null) lineSink(line);
}

/** Receives every line as printed (already scrubbed); set only when logs are exported (OTLP). */
export type LogLineSink = (line: Record<string, unknown>) => void;
let lineSink: LogLineSink | null = null;

/** Sets (or, with null, removes) the isolate's one sink; without one a line costs nothing more. */
export function setLogLineSink(sink: LogLineSink | null): void {
  lineSink = sink;
}

// Field names repeat on every line (a few per run on the dispatch path): decide each once.
const DECISION_CACHE_LIMIT = 1_000;
const deniedByName = new Map<string, boolean>();

/** True when a field of this name must not be logged. */
export function isDeniedField(name: string): boolean {
  let denied = deniedByName.get(name);
  if (denied === undefined) {
    denied = decideDenied(name);
    if (deniedByName.size >= DECISION_CACHE_LIMIT) deniedByName.clear();
    deniedByName.set(name, denied);
  }
  return denied;
}

function decideDenied(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  if (ALLOWED_NAMES.has(snake)) return false;
  return snake.split(/[^a-z0-9]+/).some((word) => DENIED_WORDS.has(word));
}

function scrub(value: unknown, depth: number): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (depth >= MAX_DEPTH) return "[truncated]";
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (!isDeniedField(name)) out[name] = scrub(field, depth + 1);
  }
  return out;
}
