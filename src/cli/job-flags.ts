// `jobs create` from flags: --name --cron/--every/--at/--delay --tz --calendar --window
// --window-days --window-tz --outside --flexible-window --target --method --body --header. Several specs (`schedules`) and inline `exclude` go in a --file job.
import type { JobCreate, JobUpdate, Schedule } from "../client/index";
import { type FlagValues, intFlag, stringFlag, stringListFlag, UsageError } from "./context";

export const JOB_FLAG_OPTIONS = {
  file: { type: "string", short: "f" },
  name: { type: "string" },
  cron: { type: "string" },
  tz: { type: "string" },
  every: { type: "string" },
  at: { type: "string" },
  delay: { type: "string" },
  target: { type: "string" },
  method: { type: "string" },
  body: { type: "string" },
  header: { type: "string", multiple: true },
  calendar: { type: "string", multiple: true },
  window: { type: "string" },
  "window-days": { type: "string" },
  "window-tz": { type: "string" },
  outside: { type: "string" },
  "flexible-window": { type: "string" },
  "max-attempts": { type: "string" },
  timeout: { type: "string" },
  "idempotency-key": { type: "string" },
  debounce: { type: "string" },
  "debounce-mode": { type: "string" },
  "debounce-key": { type: "string" },
  "debounce-max-wait": { type: "string" },
} as const;

const SPEC_FLAGS = [
  "name",
  "cron",
  "tz",
  "every",
  "at",
  "delay",
  "target",
  "method",
  "body",
  "header",
  "calendar",
  "window",
  "window-days",
  "window-tz",
  "outside",
  "flexible-window",
  "max-attempts",
  "timeout",
  "debounce",
  "debounce-mode",
  "debounce-key",
  "debounce-max-wait",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** True when any flag that describes the job itself was given (they conflict with --file). */
export function hasSpecFlags(values: FlagValues): boolean {
  return SPEC_FLAGS.some((name) => values[name] !== undefined);
}

/** Builds a create body from flags; the server validates the rest and names every bad field. */
export function jobFromFlags(values: FlagValues): JobCreate {
  const name = stringFlag(values, "name");
  const url = stringFlag(values, "target");
  if (!name) throw new UsageError("--name is required (or give the whole job with --file job.json)");
  if (!url) {
    throw new UsageError(
      "--target is required: the HTTP endpoint the job calls, or service:NAME/path, workflow:NAME, queue:NAME",
    );
  }
  const method = methodValue(stringFlag(values, "method") ?? "POST");
  const job: JobCreate = {
    name,
    schedule: scheduleFromFlags(values),
    target: targetFromFlag(url, method, headersFromFlags(stringListFlag(values, "header"))),
  };
  const body = stringFlag(values, "body");
  if (body !== undefined) job.target.body = parseBody(body);
  const maxAttempts = intFlag(values, "max-attempts", { min: 1, max: 100 });
  if (maxAttempts !== undefined) job.retry = { max_attempts: maxAttempts };
  const timeout = stringFlag(values, "timeout");
  if (timeout !== undefined) job.timeout = timeout;
  const calendars = stringListFlag(values, "calendar");
  if (calendars.length > 0) job.calendars = calendars;
  const debounce = debounceFromFlags(values);
  if (debounce !== undefined) job.debounce = debounce;
  Object.assign(job, windowsFromFlags(values));
  return job;
}

/**
 * `--debounce <period>` with `--debounce-mode leading|trailing` (default trailing),
 * `--debounce-key <key>` and `--debounce-max-wait <dur>`: the job's `debounce`.
 */
export function debounceFromFlags(values: FlagValues): JobCreate["debounce"] | undefined {
  const period = stringFlag(values, "debounce");
  const mode = stringFlag(values, "debounce-mode");
  const key = stringFlag(values, "debounce-key");
  const maxWait = stringFlag(values, "debounce-max-wait");
  if (period === undefined) {
    if (mode !== undefined || key !== undefined || maxWait !== undefined) {
      throw new UsageError(
        "--debounce-mode, --debounce-key and --debounce-max-wait go with --debounce <period>",
      );
    }
    return undefined;
  }
  if (mode !== undefined && mode !== "leading" && mode !== "trailing") {
    throw new UsageError("--debounce-mode must be leading or trailing");
  }
  return {
    period,
    mode: mode ?? "trailing",
    ...(key === undefined ? {} : { key }),
    ...(maxWait === undefined ? {} : { max_wait: maxWait }),
  };
}

/**
 * `--window 08:00-20:00 [--window-days MON-FRI,SAT] [--window-tz <zone>] [--outside defer|skip]`
 * and `--flexible-window 15m`: the job's delivery window and flexible window (the server checks
 * the values and names every bad one).
 */
export function windowsFromFlags(values: FlagValues): Pick<JobCreate, "window" | "flexible_window"> {
  const fields: Pick<JobCreate, "window" | "flexible_window"> = {};
  const between = stringFlag(values, "window");
  const days = stringFlag(values, "window-days");
  const timezone = stringFlag(values, "window-tz");
  const outside = stringFlag(values, "outside");
  if (between === undefined && (days ?? timezone ?? outside) !== undefined)
    throw new UsageError("--window-days, --window-tz and --outside go with --window <HH:MM-HH:MM>");
  if (between !== undefined) {
    const match = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(between);
    if (match === null) throw new UsageError("--window takes local times as HH:MM-HH:MM, e.g. 08:00-20:00");
    if (outside !== undefined && outside !== "defer" && outside !== "skip")
      throw new UsageError("--outside is defer (run at the next opening) or skip");
    fields.window = {
      between: [match[1] ?? "", match[2] ?? ""],
      ...(days !== undefined ? { days: days.split(",").map((day) => day.trim()) } : {}),
      ...(timezone !== undefined ? { timezone } : {}),
      ...(outside !== undefined ? { outside } : {}),
    };
  }
  const flexible = stringFlag(values, "flexible-window");
  if (flexible !== undefined) fields.flexible_window = { max: flexible };
  return fields;
}

/**
 * A JSON Merge Patch from flags (`jobs update`): only what was given. `schedule` is replaced
 * whole by the API, so a schedule flag sends a complete schedule; target fields merge.
 */
export function jobPatchFromFlags(values: FlagValues): JobUpdate {
  const patch: JobUpdate = {};
  const name = stringFlag(values, "name");
  if (name !== undefined) patch.name = name;
  if (["cron", "every", "at", "delay"].some((flag) => stringFlag(values, flag) !== undefined)) {
    patch.schedule = scheduleFromFlags(values);
  } else if (stringFlag(values, "tz") !== undefined) {
    throw new UsageError("--tz goes with --cron: the schedule is replaced whole, so give both");
  }
  const target: Record<string, unknown> = {};
  const address = stringFlag(values, "target");
  // A binding target replaces the whole target (the API does so when `type` changes).
  if (address !== undefined) Object.assign(target, targetFromFlag(address, undefined, undefined));
  const method = stringFlag(values, "method");
  if (method !== undefined) target.method = methodValue(method);
  const headers = stringListFlag(values, "header");
  if (headers.length > 0) target.headers = headersFromFlags(headers);
  const body = stringFlag(values, "body");
  if (body !== undefined) target.body = parseBody(body);
  if (Object.keys(target).length > 0) patch.target = target as JobCreate["target"];
  const maxAttempts = intFlag(values, "max-attempts", { min: 1, max: 100 });
  if (maxAttempts !== undefined) patch.retry = { max_attempts: maxAttempts };
  const timeout = stringFlag(values, "timeout");
  if (timeout !== undefined) patch.timeout = timeout;
  const calendars = stringListFlag(values, "calendar");
  if (calendars.length > 0) patch.calendars = calendars;
  const debounce = debounceFromFlags(values);
  if (debounce !== undefined) patch.debounce = debounce;
  Object.assign(patch, windowsFromFlags(values));
  return patch;
}

const BINDING_ADDRESS = /^(service|workflow|queue):([A-Z][A-Z0-9_]*)(\/.*)?$/;

/**
 * `--target`: an http(s) URL, or a binding of the deployment: `service:BILLING/hook`,
 * `workflow:REPORT_FLOW`, `queue:USER_EVENTS` (only a service binding takes a path, method and headers).
 */
export function targetFromFlag(
  address: string,
  method: (typeof METHODS)[number] | undefined,
  headers: Record<string, string> | undefined,
): JobCreate["target"] {
  const binding = BINDING_ADDRESS.exec(address);
  if (binding === null)
    return { type: "http", url: address, ...(method ? { method } : {}), ...(headers ? { headers } : {}) };
  const [, kind, name = "", path] = binding;
  if (kind === "service") {
    return {
      type: "service",
      binding: name,
      ...(path ? { path } : {}),
      ...(method ? { method } : {}),
      ...(headers ? { headers } : {}),
    };
  }
  if (path !== undefined) throw new UsageError(`--target ${kind}:${name} takes no path`);
  return { type: kind as "workflow" | "queue", binding: name };
}

function methodValue(text: string): (typeof METHODS)[number] {
  const method = text.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`--method must be one of ${METHODS.join(", ")}, got ${method}`);
  }
  return method as (typeof METHODS)[number];
}

export function scheduleFromFlags(values: FlagValues): Schedule {
  const kinds = ["cron", "every", "at", "delay"].filter((flag) => stringFlag(values, flag) !== undefined);
  if (kinds.length !== 1) {
    throw new UsageError(
      'give exactly one schedule: --cron "<expr>" [--tz <zone>], --every <duration>, --at <instant> or --delay <duration>',
    );
  }
  const cron = stringFlag(values, "cron");
  if (cron !== undefined) return cronSchedule(cron, stringFlag(values, "tz"));
  if (stringFlag(values, "tz") !== undefined) throw new UsageError("--tz applies to --cron only");
  const every = stringFlag(values, "every");
  if (every !== undefined) return { type: "interval", every: durationValue(every) };
  const at = stringFlag(values, "at");
  if (at !== undefined) return { type: "once", at };
  return { type: "once", delay: durationValue(stringFlag(values, "delay") ?? "") };
}

/**
 * `--cron "CRON_TZ=Europe/Paris 0 9 * * *"` (the crontab spelling) means the zone and the
 * expression; the API takes them as two fields, so split them here. A zone given both ways must agree.
 */
function cronSchedule(text: string, tzFlag: string | undefined): Schedule {
  const prefixed = /^\s*(?:CRON_TZ|TZ)=(\S*)\s*(.*)$/.exec(text);
  if (!prefixed) return { type: "cron", expr: text, timezone: tzFlag ?? "UTC" };
  const [, zone = "", expr = ""] = prefixed;
  if (!zone || !expr) {
    throw new UsageError(
      'a CRON_TZ= prefix needs a zone and an expression: "CRON_TZ=Europe/Paris 0 9 * * *", or use --tz <zone>',
    );
  }
  if (tzFlag !== undefined && tzFlag !== zone) {
    throw new UsageError(`--tz ${tzFlag} and CRON_TZ=${zone} disagree: give the zone once, with --tz`);
  }
  return { type: "cron", expr, timezone: zone };
}

/** "15m" stays a string; "60000" becomes the integer milliseconds the API also accepts. */
function durationValue(text: string): string | number {
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** `--header "x-tenant: acme"` (repeatable) -> { "x-tenant": "acme" }. */
export function headersFromFlags(headers: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(":");
    if (colon <= 0)
      throw new UsageError(`--header must look like "name: value", got ${JSON.stringify(header)}`);
    out[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return out;
}

/** JSON when it parses (`{"sub":42}`), else the text as is. */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
