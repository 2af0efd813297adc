// A job for people: every field the API returns, one per line in `jobs create`, `get` and
// `update`, one per column in `jobs list --wide`. Both views read the one list below, so a field
// shown in one is shown in the other, and a test holds the list to the job's schema: a field the
// API gains and this list lacks fails it.
import type { Job, Schedule } from "../client/index";
import { type Column, renderKeyValues } from "./render";

export interface JobField {
  /** Label in the key/value view (`jobs get`). */
  label: string;
  /** Column header in `jobs list --wide`. */
  header: string;
  /** The job's fields this one shows (a test checks that together they are all of them). */
  keys: readonly (keyof Job)[];
  /** Text, or lines of text; null or "" reads "-". */
  value: (job: Job) => string | string[] | number | null;
  /** Longest cell in the wide table (free-form JSON is cut; default: whole). */
  maxWidth?: number;
}

const WHOLE = 1_000;
const JSON_CELL = 80;

/** `cron "30 2 * * *" America/New_York (DST gap skip, overlap both)`, `every 15m from <anchor>`. */
export function formatSchedule(schedule: Schedule): string {
  switch (schedule.type) {
    case "cron": {
      const dst = schedule.dst ? ` (DST gap ${schedule.dst.gap}, overlap ${schedule.dst.overlap})` : "";
      return `cron "${schedule.expr}" ${schedule.timezone}${dst}`;
    }
    case "interval":
      return `every ${schedule.every}${schedule.anchor ? ` from ${schedule.anchor}` : ""}`;
    case "once":
      return schedule.at ? `once at ${schedule.at}` : `once after ${schedule.delay}`;
  }
}

/** A job's specs (`schedule` or `schedules`). */
export function jobSchedules(job: Pick<Job, "schedule" | "schedules">): Schedule[] {
  return job.schedules ?? (job.schedule === undefined ? [] : [job.schedule]);
}

/** A job's specs on one line, then its calendars: the SCHEDULE column of `jobs list`. */
export function formatJobSchedules(job: Pick<Job, "schedule" | "schedules" | "calendars">): string {
  const specs = jobSchedules(job).map(formatSchedule).join(" + ");
  const calendars = job.calendars ?? [];
  return calendars.length === 0 ? specs : `${specs} except ${calendars.join(", ")}`;
}

/** `POST https://…`, `service BILLING: POST /hook`, `workflow REPORT_FLOW`, `queue USER_EVENTS`. */
function describeTarget(target: Job["target"]): string {
  if (target.type === "http") return `${target.method} ${target.url}`;
  if (target.type === "service") return `service ${target.binding}: ${target.method} ${target.path}`;
  return `${target.type} ${target.binding}`;
}

function targetHeaders(target: Job["target"]): string[] {
  if (target.type !== "http" && target.type !== "service") return [];
  return Object.entries(target.headers).map(([name, value]) => `${name}: ${value}`);
}

function targetBody(target: Job["target"]): string | null {
  if (target.body === undefined || target.body === null) return null;
  return typeof target.body === "string" ? target.body : JSON.stringify(target.body);
}

/** `3 attempts; backoff 30s ×2 up to 1h, full jitter; also on 409, 423`. */
function describeRetry(retry: Job["retry"]): string {
  const { backoff } = retry;
  const delays = retry.delay_expression
    ? `delay ${retry.delay_expression} ms`
    : `backoff ${backoff.initial} ×${backoff.multiplier} up to ${backoff.max}, ${backoff.jitter} jitter`;
  const extra = retry.retry_on_status.length > 0 ? `; also on ${retry.retry_on_status.join(", ")}` : "";
  return `${retry.max_attempts} attempts; ${delays}${extra}`;
}

/** `fire_now, grace 60s`, `catch_up (at most 10), grace 60s`. */
function describeMisfire(misfire: Job["misfire"]): string {
  const cap = misfire.policy === "catch_up" ? ` (at most ${misfire.max_catch_up})` : "";
  return `${misfire.policy}${cap}, grace ${misfire.grace}`;
}

/** `2026-12-25; 2026-12-24 to 2027-01-01; every sat, sun (Europe/London)`. */
function describeExclude(exclude: NonNullable<Job["exclude"]>): string {
  const rules = exclude.rules.map((rule) => {
    if (rule.type === "date") return rule.date;
    if (rule.type === "range") return `${rule.from} to ${rule.to}`;
    return `every ${rule.days.join(", ")}`;
  });
  return `${rules.join("; ")} (${exclude.timezone})`;
}

/** `MON-FRI 08:00-20:00 Europe/Berlin, outside: defer`. */
function describeWindow(window: NonNullable<Job["window"]>): string {
  const days = window.days?.length ? window.days.join(",") : "every day";
  const zone = window.timezone ?? "(the schedule's zone)";
  return `${days} ${window.between[0]}-${window.between[1]} ${zone}, outside: ${window.outside}`;
}

/** `key billing: 10 per 1s, 2 in flight`. */
function describeFlowControl(flow: NonNullable<Job["flow_control"]>): string {
  const limits = [
    flow.rate === undefined ? null : `${flow.rate} per ${flow.period}`,
    flow.parallelism === undefined ? null : `${flow.parallelism} in flight`,
  ].filter((limit) => limit !== null);
  return `key ${flow.key}: ${limits.join(", ")}`;
}

/** `trailing 30s, key acct, at most 5m`. */
export function describeDebounce(debounce: NonNullable<Job["debounce"]>): string {
  const parts = [`${debounce.mode} ${debounce.period}`];
  if (debounce.key !== undefined) parts.push(`key ${debounce.key}`);
  if (debounce.max_wait !== undefined) parts.push(`at most ${debounce.max_wait}`);
  return parts.join(", ");
}

const jsonOrNone = (value: unknown) =>
  value === undefined || value === null || (typeof value === "object" && Object.keys(value).length === 0)
    ? null
    : JSON.stringify(value);

/** Every field of a job, in reading order. */
export const JOB_FIELDS: readonly JobField[] = [
  { label: "id", header: "ID", keys: ["id"], value: (job) => job.id },
  { label: "name", header: "NAME", keys: ["name"], value: (job) => job.name },
  { label: "status", header: "STATUS", keys: ["status"], value: (job) => job.status },
  { label: "version", header: "VERSION", keys: ["version"], value: (job) => job.version },
  { label: "shard", header: "SHARD", keys: ["shard"], value: (job) => job.shard },
  {
    label: "schedule",
    header: "SCHEDULE",
    keys: ["schedule", "schedules"],
    value: (job) => jobSchedules(job).map(formatSchedule),
  },
  { label: "calendars", header: "CALENDARS", keys: ["calendars"], value: (job) => job.calendars.join(", ") },
  {
    label: "exclude",
    header: "EXCLUDE",
    keys: ["exclude"],
    value: (job) => (job.exclude ? describeExclude(job.exclude) : null),
  },
  { label: "target", header: "TARGET", keys: ["target"], value: (job) => describeTarget(job.target) },
  {
    label: "target headers",
    header: "HEADERS",
    keys: ["target"],
    value: (job) => targetHeaders(job.target),
    maxWidth: JSON_CELL,
  },
  {
    label: "target body",
    header: "BODY",
    keys: ["target"],
    value: (job) => targetBody(job.target),
    maxWidth: JSON_CELL,
  },
  { label: "retry", header: "RETRY", keys: ["retry"], value: (job) => describeRetry(job.retry) },
  { label: "misfire", header: "MISFIRE", keys: ["misfire"], value: (job) => describeMisfire(job.misfire) },
  { label: "overlap", header: "OVERLAP", keys: ["overlap"], value: (job) => job.overlap },
  { label: "timeout", header: "TIMEOUT", keys: ["timeout"], value: (job) => String(job.timeout) },
  { label: "completion", header: "COMPLETION", keys: ["completion"], value: (job) => job.completion },
  {
    label: "heartbeat timeout",
    header: "HEARTBEAT",
    keys: ["heartbeat_timeout"],
    value: (job) => String(job.heartbeat_timeout),
  },
  { label: "start at", header: "START AT", keys: ["start_at"], value: (job) => job.start_at },
  { label: "end at", header: "END AT", keys: ["end_at"], value: (job) => job.end_at },
  { label: "max runs", header: "MAX RUNS", keys: ["max_runs"], value: (job) => job.max_runs },
  { label: "priority", header: "PRIORITY", keys: ["priority"], value: (job) => job.priority },
  {
    label: "jitter",
    header: "JITTER",
    keys: ["jitter"],
    value: (job) => (job.jitter === null ? null : String(job.jitter)),
  },
  {
    label: "window",
    header: "WINDOW",
    keys: ["window"],
    value: (job) => (job.window ? describeWindow(job.window) : null),
  },
  {
    label: "flexible window",
    header: "FLEXIBLE WINDOW",
    keys: ["flexible_window"],
    value: (job) => (job.flexible_window ? `up to ${job.flexible_window.max} after each instant` : null),
  },
  {
    label: "debounce",
    header: "DEBOUNCE",
    keys: ["debounce"],
    value: (job) => (job.debounce ? describeDebounce(job.debounce) : null),
  },
  {
    label: "flow control",
    header: "FLOW CONTROL",
    keys: ["flow_control"],
    value: (job) => (job.flow_control ? describeFlowControl(job.flow_control) : null),
  },
  {
    label: "pause after failures",
    header: "PAUSE AFTER",
    keys: ["pause_after_failures"],
    value: (job) => job.pause_after_failures,
  },
  { label: "on failure", header: "ON FAILURE", keys: ["on_failure"], value: (job) => job.on_failure },
  {
    label: "alert after",
    header: "ALERT AFTER",
    keys: ["alert_after"],
    value: (job) => String(job.alert_after),
  },
  {
    label: "metadata",
    header: "METADATA",
    keys: ["metadata"],
    value: (job) => jsonOrNone(job.metadata),
    maxWidth: JSON_CELL,
  },
  {
    label: "qstash",
    header: "QSTASH",
    keys: ["qstash"],
    value: (job) => jsonOrNone(job.qstash),
    maxWidth: JSON_CELL,
  },
  {
    // A schedule file's label: `edgecron apply` of that file owns the job (docs/SCHEDULES-AS-CODE.md).
    label: "managed by",
    header: "MANAGED BY",
    keys: ["managed_by"],
    value: (job) => job.managed_by ?? null,
  },
  {
    label: "next fires",
    header: "NEXT FIRES",
    keys: ["next_fire_times"],
    value: (job) => job.next_fire_times,
  },
  {
    // A list the search bound cut short says so (docs/API.md, "The search bound").
    label: "next fires stopped",
    header: "NEXT FIRES STOPPED",
    keys: ["next_fire_times_stopped"],
    value: (job) => job.next_fire_times_stopped?.detail ?? null,
  },
  { label: "created", header: "CREATED", keys: ["created_at"], value: (job) => job.created_at },
  { label: "updated", header: "UPDATED", keys: ["updated_at"], value: (job) => job.updated_at },
];

/** The field's text; null when the job lacks it altogether (an older server's answer). */
function fieldValue(field: JobField, job: Job): ReturnType<JobField["value"]> {
  return field.keys.every((key) => job[key] === undefined) ? null : field.value(job);
}

/** A job as `label  value` lines, every field included ("-" for one not set). */
export function renderJob(job: Job): string {
  return renderKeyValues(JOB_FIELDS.map((field): [string, unknown] => [field.label, fieldValue(field, job)]));
}

/** `jobs list --wide`: a column per field, one line per job (list values joined with ", "). */
export const WIDE_JOB_COLUMNS: Column<Job>[] = JOB_FIELDS.map((field) => ({
  header: field.header,
  value: (job: Job) => {
    const value = fieldValue(field, job);
    return Array.isArray(value) ? value.join(", ") : value;
  },
  maxWidth: field.maxWidth ?? WHOLE,
}));
