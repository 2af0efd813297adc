// Maps the job form to the API's JSON body and the API's problem+json `errors[].path` back to fields.
import type { Job, Problem } from "./types";

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string[]>;

export const JOB_FIELDS = [
  "name",
  "schedule.type",
  "schedule.expr",
  "schedule.timezone",
  "schedule.every",
  "schedule.at",
  "schedule.delay",
  "schedules.more",
  "calendars",
  "target.type",
  "target.url",
  "target.binding",
  "target.path",
  "target.method",
  "target.headers",
  "target.body",
  "retry.max_attempts",
  "retry.backoff.initial",
  "timeout",
  "overlap",
  "misfire.policy",
  "completion",
  "heartbeat_timeout",
  "window.between",
  "window.days",
  "window.timezone",
  "window.outside",
  "flexible_window.max",
  "debounce.period",
  "debounce.mode",
  "debounce.key",
  "debounce.max_wait",
] as const;

export const DEFAULT_VALUES: FormValues = {
  "schedule.type": "cron",
  "schedule.timezone": "UTC",
  "target.type": "http",
  "target.method": "POST",
  "retry.max_attempts": "3",
  "retry.backoff.initial": "30s",
  timeout: "30s",
  overlap: "allow",
  "misfire.policy": "fire_now",
  completion: "response",
  heartbeat_timeout: "5m",
  "window.outside": "defer",
  "debounce.mode": "trailing",
};

/** Picks the job form's fields out of a parsed urlencoded body. */
export function formValues(body: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of JOB_FIELDS) {
    const value = body[field];
    if (typeof value === "string") values[field] = value;
  }
  return values;
}

/** "30s" stays a string; "1500" becomes 1500 ms, as the API accepts both. */
function duration(value: string): string | number {
  return /^\d+$/.test(value) ? Number(value) : value;
}

function integerOrRaw(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

/**
 * The form's specs: the schedule fields, plus one cron a line of "more crons" (same zone), sent
 * as `schedules` when there are several; and the calendar names, comma separated.
 */
export function specFieldsFrom(values: FormValues): Record<string, unknown> {
  const first = scheduleFrom(values);
  const more = (values["schedules.more"] ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const zone = (values["schedule.timezone"] ?? "").trim() || "UTC";
  const fields: Record<string, unknown> =
    more.length === 0
      ? { schedule: first }
      : { schedules: [first, ...more.map((expr) => ({ type: "cron", expr, timezone: zone }))] };
  const calendars = (values.calendars ?? "")
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter(Boolean);
  fields.calendars = calendars;
  return fields;
}

/**
 * The delivery window ("08:00-20:00", weekdays comma separated, a zone, defer or skip; none when
 * the times are empty) and the flexible window (a duration; none when empty). Text the form
 * cannot split is sent as it is, for the API to name.
 */
export function windowFieldsFrom(values: FormValues): Record<string, unknown> {
  const get = (name: string) => (values[name] ?? "").trim();
  const fields: Record<string, unknown> = { window: null, flexible_window: null };
  const between = get("window.between");
  if (between) {
    const parts = between.split("-").map((part) => part.trim());
    const days = get("window.days")
      .split(/[\s,]+/)
      .filter(Boolean);
    fields.window = {
      between: parts.length === 2 ? parts : between,
      ...(days.length > 0 ? { days } : {}),
      ...(get("window.timezone") ? { timezone: get("window.timezone") } : {}),
      outside: get("window.outside") || "defer",
    };
  }
  const flexible = get("flexible_window.max");
  if (flexible) fields.flexible_window = { max: duration(flexible) };
  return fields;
}

/** The triggers' debounce (a period, leading or trailing, a key, a longest wait; none when the period is empty). */
export function debounceFieldsFrom(values: FormValues): Record<string, unknown> {
  const get = (name: string) => (values[`debounce.${name}`] ?? "").trim();
  if (!get("period")) return { debounce: null };
  return {
    debounce: {
      period: duration(get("period")),
      mode: get("mode") || "trailing",
      ...(get("key") ? { key: get("key") } : {}),
      ...(get("max_wait") ? { max_wait: duration(get("max_wait")) } : {}),
    },
  };
}

export function scheduleFrom(values: FormValues): Record<string, unknown> {
  const type = values["schedule.type"] || "cron";
  const get = (name: string) => (values[`schedule.${name}`] ?? "").trim();
  if (type === "interval") return { type, every: duration(get("every")) };
  if (type === "once")
    return get("at") || !get("delay") ? { type, at: get("at") } : { type, delay: duration(get("delay")) };
  return { type, expr: get("expr"), timezone: get("timezone") || "UTC" };
}

function parseJsonField(text: string, field: string, errors: FieldErrors): unknown {
  try {
    return JSON.parse(text);
  } catch {
    errors[field] = ["must be valid JSON"];
    return undefined;
  }
}

const TARGET_TYPES = ["http", "service", "workflow", "queue"];

/** Headers and a method belong to the kinds that make an HTTP request. */
function sendsHeaders(type: unknown): boolean {
  return type === "http" || type === "service";
}

/** The target's own fields for its kind; the form shows them all, so the others are dropped. */
function targetFrom(values: FormValues): Record<string, unknown> {
  const chosen = values["target.type"] ?? "http";
  const type = TARGET_TYPES.includes(chosen) ? chosen : "http";
  const method = values["target.method"] || "POST";
  const binding = (values["target.binding"] ?? "").trim();
  if (type === "http") return { type, url: (values["target.url"] ?? "").trim(), method };
  if (type === "workflow" || type === "queue") return { type, binding };
  const path = (values["target.path"] ?? "").trim();
  return { type, binding, ...(path ? { path } : {}), method };
}

/**
 * The create body, and the fields the form itself finds wrong (text that is not JSON). Such a
 * field is sent as it is, which the API always refuses: send the body anyway and show the local
 * errors beside the API's (mapErrors), so one submit shows every problem.
 */
export function jobBodyFrom(values: FormValues): { body: Record<string, unknown>; localErrors: FieldErrors } {
  const localErrors: FieldErrors = {};
  const target = targetFrom(values);
  const headers = (values["target.headers"] ?? "").trim();
  if (headers && sendsHeaders(target.type)) {
    // Text that is not JSON is still sent, as a string the API refuses: the create then stores
    // nothing, and its answer names every other bad field in the same round trip.
    const parsed = parseJsonField(headers, "target.headers", localErrors);
    target.headers = parsed === undefined ? headers : parsed;
  }
  const payload = values["target.body"] ?? "";
  if (payload.trim()) {
    try {
      target.body = JSON.parse(payload);
    } catch {
      target.body = payload;
    }
  }
  const body: Record<string, unknown> = {
    name: (values.name ?? "").trim(),
    ...specFieldsFrom(values),
    ...windowFieldsFrom(values),
    ...debounceFieldsFrom(values),
    target,
  };
  const attempts = (values["retry.max_attempts"] ?? "").trim();
  const initial = (values["retry.backoff.initial"] ?? "").trim();
  if (attempts || initial) {
    body.retry = {
      ...(attempts ? { max_attempts: integerOrRaw(attempts) } : {}),
      ...(initial ? { backoff: { initial: duration(initial) } } : {}),
    };
  }
  if (values.timeout?.trim()) body.timeout = duration(values.timeout.trim());
  if (values.overlap) body.overlap = values.overlap;
  if (values["misfire.policy"]) body.misfire = { policy: values["misfire.policy"] };
  if (values.completion) body.completion = values.completion;
  if (values.heartbeat_timeout?.trim()) body.heartbeat_timeout = duration(values.heartbeat_timeout.trim());
  return { body, localErrors };
}

/** An edit keeps what the form does not show (backoff cap, DST policy, ...) by merging over the job. */
export function jobPatchFrom(
  job: Job,
  values: FormValues,
): { body: Record<string, unknown>; localErrors: FieldErrors } {
  const { body, localErrors } = jobBodyFrom(values);
  const schedule = (body.schedule ?? (body.schedules as Record<string, unknown>[])[0]) as Record<
    string,
    unknown
  >;
  const stored = primaryScheduleOf(job) as Record<string, unknown>;
  if (stored.type === "cron" && schedule.type === "cron" && stored.dst) schedule.dst = stored.dst;
  const formRetry = (body.retry ?? {}) as { max_attempts?: unknown; backoff?: Record<string, unknown> };
  body.retry = {
    ...job.retry,
    ...(formRetry.max_attempts !== undefined ? { max_attempts: formRetry.max_attempts } : {}),
    backoff: { ...job.retry.backoff, ...(formRetry.backoff ?? {}) },
  };
  const target = body.target as Record<string, unknown>;
  // Same kind: keep what the form does not show. Another kind: the form's fields are the target.
  body.target = target.type === (job.target.type ?? "http") ? { ...job.target, ...target } : target;
  const merged = body.target as Record<string, unknown>;
  if (!values["target.headers"]?.trim() && sendsHeaders(merged.type)) merged.headers = {};
  if (!values["target.body"]?.trim()) delete merged.body;
  body.misfire = { ...job.misfire, ...(body.misfire as Record<string, unknown>) };
  body.version = job.version;
  return { body, localErrors };
}

/** The job's first spec: the one the form's schedule fields edit. */
export function primaryScheduleOf(job: Pick<Job, "schedule" | "schedules">): NonNullable<Job["schedule"]> {
  return job.schedule ?? job.schedules?.[0] ?? { type: "once" };
}

export function valuesFromJob(job: Job): FormValues {
  const schedule = primaryScheduleOf(job) as Record<string, unknown>;
  const more = (job.schedules ?? []).slice(1) as Record<string, unknown>[];
  const text = (value: unknown) => (value === undefined || value === null ? "" : String(value));
  // Every field any target kind has, each optional: the form shows them all.
  const target: {
    type?: string;
    url?: string;
    binding?: string;
    path?: string;
    method?: string;
    headers?: Record<string, string>;
  } = job.target;
  const body = job.target.body;
  return {
    name: job.name,
    "schedule.type": String(schedule.type),
    "schedule.expr": text(schedule.expr),
    "schedule.timezone": text(schedule.timezone) || "UTC",
    "schedule.every": text(schedule.every),
    "schedule.at": text(schedule.at),
    "schedule.delay": "",
    // Further specs the form can edit are crons; any other kind shows as its JSON (the API refuses
    // it as an expression, so nothing is silently dropped on save).
    "schedules.more": more
      .map((spec) => (spec.type === "cron" ? String(spec.expr) : JSON.stringify(spec)))
      .join("\n"),
    calendars: (job.calendars ?? []).join(", "),
    "target.type": target.type ?? "http",
    "target.url": text(target.url),
    "target.binding": text(target.binding),
    "target.path": text(target.path),
    "target.method": target.method ?? "POST",
    "target.headers": Object.keys(target.headers ?? {}).length ? JSON.stringify(target.headers, null, 2) : "",
    "target.body":
      body === undefined || body === null
        ? ""
        : typeof body === "string"
          ? body
          : JSON.stringify(body, null, 2),
    "retry.max_attempts": text(job.retry.max_attempts),
    "retry.backoff.initial": text(job.retry.backoff?.initial),
    timeout: text(job.timeout),
    overlap: job.overlap,
    "misfire.policy": job.misfire.policy,
    completion: text(job.completion) || "response",
    heartbeat_timeout: text(job.heartbeat_timeout) || "5m",
    "window.between": job.window ? job.window.between.join("-") : "",
    "window.days": (job.window?.days ?? []).join(", "),
    "window.timezone": text(job.window?.timezone),
    "window.outside": job.window?.outside ?? "defer",
    "flexible_window.max": text(job.flexible_window?.max),
    "debounce.period": text(job.debounce?.period),
    "debounce.mode": job.debounce?.mode ?? "trailing",
    "debounce.key": text(job.debounce?.key),
    "debounce.max_wait": text(job.debounce?.max_wait),
  };
}

/** Field that shows an API error: the exact path, else the longest field the path lies under. */
export function fieldForPath(path: string): string | null {
  if ((JOB_FIELDS as readonly string[]).includes(path)) return path;
  if (path === "schedule" || path === "schedule.type") return "schedule.type";
  const owner = [...JOB_FIELDS]
    .filter((field) => path.startsWith(`${field}.`))
    .sort((a, b) => b.length - a.length)[0];
  return owner ?? null;
}

/** Field errors from the problem plus local ones; errors that name no field are returned apart. */
export function mapErrors(
  problem: Problem | null,
  local: FieldErrors = {},
): { fields: FieldErrors; other: string[] } {
  const fields: FieldErrors = { ...local };
  const other: string[] = [];
  for (const error of problem?.errors ?? []) {
    const field = fieldForPath(error.path);
    // The form's own message says more than the API's "expected record" for the same field.
    if (field && local[field]) continue;
    if (field) fields[field] = [...(fields[field] ?? []), error.message];
    else other.push(error.path ? `${error.path}: ${error.message}` : error.message);
  }
  if (problem && !problem.errors?.length) other.push(problem.detail ?? problem.title);
  return { fields, other };
}
