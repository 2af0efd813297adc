// Invalid JSON bodies for the bad-input generator: each mutation breaks one field of a valid
// body and names the path a user should see in `errors[]`.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One broken field: `set` at the dotted path (undefined deletes), `path` expected in errors[]. */
export interface Mutation {
  set: Record<string, Json | undefined>;
  path: string;
  /** Only wrong when creating (a preview of a past instant is fine). */
  createOnly?: boolean;
}

export function validJob(target: string): Record<string, Json> {
  return {
    name: "bad-input-fixture",
    schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "America/New_York" },
    target: { url: target, method: "POST", body: { a: 1 } },
  };
}

/** A deep copy of `base` with the mutation applied. */
export function mutate(base: Record<string, Json>, mutation: Mutation): Record<string, Json> {
  const copy = JSON.parse(JSON.stringify(base)) as Record<string, Json>;
  for (const [path, value] of Object.entries(mutation.set)) {
    const parts = path.split(".");
    let node = copy as Record<string, Json>;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (typeof next !== "object" || next === null || Array.isArray(next)) node[part] = {};
      node = node[part] as Record<string, Json>;
    }
    const last = parts[parts.length - 1] as string;
    if (value === undefined) delete node[last];
    else node[last] = value;
  }
  return copy;
}

const each = (path: string, values: (Json | undefined)[], at = path): Mutation[] =>
  values.map((value) => ({ set: { [path]: value }, path: at }));

const cron = (expr: Json): Mutation => ({ set: { "schedule.expr": expr }, path: "schedule.expr" });
const interval = (every: Json): Mutation => ({
  set: { schedule: { type: "interval", every } },
  path: "schedule.every",
});

/** What is wrong with a job, field by field: types, ranges, syntax, unicode, unknown keys. */
export const JOB_MUTATIONS: Mutation[] = [
  ...each("name", [5, "", "x".repeat(201), null, ["a"], {}, undefined]),
  ...each("schedule", ["daily", null, 7, [], undefined]),
  ...each("schedule.type", ["weekly", 1, null], "schedule"),
  ...[
    "60 * * * *",
    "* * *",
    "0 0 30 2 *",
    "@fortnightly",
    "L L L L L",
    "x".repeat(300),
    "",
    "0 9 * * MON\u0000",
    "0 9 * * \u202eMON",
    "0\u200b 9 * * *",
    "*/0 * * * *",
    "5-1 * * * * * *",
    "0 0 0 * *",
    "0 25 * * *",
    "\ud800 * * * *",
    42,
  ].map(cron),
  ...each("schedule.timezone", [
    "Mars/Olympus",
    "UTC+25",
    "",
    7,
    null,
    "America/New_York\u200b",
    "Europe/Berlin\u0000",
    "\u202eUTC",
    "../../etc/passwd",
    "\udfff",
  ]),
  // Valid syntax that can never fire (every match in London's gap, skipped), and the search's
  // worst case (every second of that hour, every year): refused, never stored.
  ...["0 1 * 3 7L", "* * 1 * 3 0L"].map(
    (expr): Mutation => ({
      set: {
        schedule: { type: "cron", expr, timezone: "Europe/London", dst: { gap: "skip", overlap: "first" } },
      },
      path: "schedule.expr",
    }),
  ),
  ...each("schedule.dst", ["both", 1], "schedule.dst"),
  ...each("schedule.dst.gap", ["jump", null], "schedule.dst.gap"),
  ...each("schedule.extra", [1], "schedule.extra"),
  ...["0s", "500ms", "999", 999, -1000, "1x", "", "1e3s", 1e308, "366000d", 1.5, "١٠s"].map(interval),
  { set: { schedule: { type: "once" } }, path: "schedule.at" },
  { set: { schedule: { type: "once", at: "2099-01-01T00:00:00Z", delay: "1h" } }, path: "schedule.at" },
  { set: { schedule: { type: "once", at: "2020-01-01T00:00:00Z" } }, path: "schedule.at", createOnly: true },
  { set: { schedule: { type: "once", at: "tomorrow" } }, path: "schedule.at" },
  { set: { schedule: { type: "once", at: "2026-13-01T00:00:00Z" } }, path: "schedule.at" },
  { set: { schedule: { type: "once", delay: "-1h" } }, path: "schedule.delay" },
  { set: { schedule: { type: "once", delay: 1e308 } }, path: "schedule.delay" },
  ...each("target", ["https://example.com", null, [], undefined]),
  ...each("target.url", [
    "ftp://example.com/x",
    "not a url",
    "javascript:alert(1)",
    `https://example.com/${"a".repeat(3000)}`,
    "https://exa\u0000mple.com/",
    "http://[::1",
    "https://user:pw@example.com/",
    "//example.com/hook",
    5,
    null,
  ]),
  ...each("target.method", ["TRACE", "get", 1]),
  ...each("target.type", ["grpc"]),
  ...each("target.headers", ["x", [1]]),
  { set: { "target.headers": { "bad header": "x" } }, path: "target.headers.bad header" },
  { set: { "target.headers": { "Idempotency-Key": "x" } }, path: "target.headers.Idempotency-Key" },
  { set: { "target.headers": { "edgecron-signature": "x" } }, path: "target.headers.edgecron-signature" },
  { set: { "target.headers": { "x-n": 5 } }, path: "target.headers.x-n" },
  { set: { "target.headers": { "x-big": "y".repeat(9000) } }, path: "target.headers.x-big" },
  { set: { "target.headers": { "x-\u202e": "y" } }, path: "target.headers.x-\u202e" },
  { set: { "target.headers": { "x-a": "b\r\nInjected: 1" } }, path: "target.headers.x-a" },
  { set: { "target.headers": { "x-a": "b\u0000" } }, path: "target.headers.x-a" },
  { set: { "target.headers": { "x-a": "line\nbreak" } }, path: "target.headers.x-a" },
  // Hop-by-hop and framing headers: the runtime owns them (`Expect: 100-continue` broke a 200).
  ...[
    "Expect",
    "Connection",
    "Keep-Alive",
    "Proxy-Authorization",
    "proxy-connection",
    "TE",
    "Trailer",
    "Transfer-Encoding",
    "Upgrade",
    "Content-Length",
    "Host",
  ].map((name) => ({ set: { "target.headers": { [name]: "x" } }, path: `target.headers.${name}` })),
  { set: { "target.headers": { "x-a": "b\u0001" } }, path: "target.headers.x-a" },
  { set: { "target.headers": { "x-a": "del\u007f" } }, path: "target.headers.x-a" },
  { set: { "target.headers": { "x-a": "euro \u20ac" } }, path: "target.headers.x-a" },
  { set: { "target.headers": { "x\u0000a": "b" } }, path: "target.headers.x\u0000a" },
  {
    set: { "target.headers": Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-h${i}`, "v"])) },
    path: "target.headers",
  },
  {
    set: {
      "target.headers": Object.fromEntries(
        Array.from({ length: 5 }, (_, i) => [`x-h${i}`, "v".repeat(7000)]),
      ),
    },
    path: "target.headers",
  },
  { set: { "target.body": "b".repeat(100 * 1024 + 1) }, path: "target.body" },
  { set: { "target.body": { blob: "é".repeat(52 * 1024) } }, path: "target.body" },
  ...each("retry", ["3", [], 3]),
  ...each("retry.max_attempts", [0, -1, 101, 1.5, "3", 1e308, 2 ** 53, null]),
  ...each("retry.backoff.multiplier", [0, 11, "2", -1]),
  ...each("retry.backoff.jitter", ["some", true]),
  ...each("retry.backoff.initial", ["-1s", "soon", 1e308]),
  ...each("retry.retry_on_status", [[500], [399], "404", Array.from({ length: 21 }, () => 404)]),
  ...each("misfire.policy", ["later", 0]),
  ...each("misfire.grace", ["forever", -5]),
  ...each("misfire.max_catch_up", [0, 1001, 2.5]),
  ...each("overlap", ["sometimes", 1, null]),
  ...each("timeout", ["0s", "16m", "-1s", 999, "1y", 1e308, ""]),
  ...each("completion", ["poll", true, null]),
  ...each("heartbeat_timeout", ["9s", "25h", 9_999, "soon", null]),
  ...each("start_at", ["yesterday", 5, "2026-02-30T00:00:00Z"]),
  ...each("end_at", ["never", "2026-01-01 00:00:00"]),
  // Windows the schedule never fires in, refused like a cron that never fires.
  {
    set: {
      start_at: "2030-01-01T10:00:00Z",
      end_at: "2030-01-01T11:00:00Z",
      schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
    },
    path: "end_at",
  },
  {
    set: {
      start_at: "2030-01-01T00:31:00Z",
      end_at: "2030-01-01T01:29:59Z",
      schedule: { type: "interval", every: "1h", anchor: "2030-01-01T00:30:00Z" },
    },
    path: "end_at",
  },
  {
    set: {
      start_at: "2030-06-01T00:00:00Z",
      end_at: null,
      schedule: { type: "once", at: "2030-01-01T00:00:00Z" },
    },
    path: "start_at",
  },
  ...each("max_runs", [0, -5, 1e10, 1.5, "10"]),
  ...each("jitter", ["2h", -1, "abc"]),
  ...each("window", [{ between: ["08:00", "08:00"] }, { between: "08:00-20:00" }], "window.between"),
  ...each("window", [{ between: ["08:00", "25:00"] }, { between: ["08:00", "8pm"] }], "window.between.1"),
  ...each("window", [{ between: ["08:00", "20:00"], days: ["WEEKDAYS"] }], "window.days.0"),
  ...each("window", [{ between: ["08:00", "20:00"], outside: "later" }], "window.outside"),
  ...each("window", [{ between: ["08:00", "20:00"], timezone: "+05:30" }], "window.timezone"),
  ...each("window", ["08:00", 5], "window"),
  ...each("flexible_window", [{ max: "0s" }, { max: "2d" }, { max: "soon" }], "flexible_window.max"),
  ...each("pause_after_failures", [0, 1001, "1"]),
  ...each("on_failure", ["ftp://x", "not-url", 5, "javascript:void(0)"]),
  ...each("alert_after", ["0s", "500ms", false]),
  ...each("metadata", ["x", [1], 5]),
  ...each("extra", [1]),
  ...each("na\u200bme", ["zero-width key"]),
  ...each("\u0000", [1]),
  ...each("\u202ename", ["rtl key"]),
  ...each("constructor", [1]),
];

/** Raw JSON texts that must be refused as a whole: not JSON, or not an object where one is needed. */
export const MALFORMED_JSON: string[] = [
  "",
  " ",
  "{",
  "}",
  "{'name': 1}",
  '{"a": 1,}',
  "NaN",
  '{"a": 01}',
  '{"a": "\\x41"}',
  '{"a": "unterminated}',
  "[1, 2",
  "nul",
  '{"a":1}{"b":2}',
  "\u0000",
  '{"a": Infinity}',
  "/* comment */ {}",
];

/** JSON values that parse but are not the object a route expects. */
export const NOT_OBJECTS: string[] = ["[]", "5", '"string"', "null", "true", '[{"name": "x"}]'];

/** `{"a":{"a":...}}` nested `depth` deep, as text (JSON.stringify itself would overflow the stack). */
export function deeplyNested(depth: number, leaf = "1"): string {
  return `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;
}

/** A body a route would accept, except for a field set to `__proto__` (prototype pollution). */
export const PROTO_POLLUTION = '{"__proto__": {"admin": true}}';
