// Every timestamp the console shows names its zone: UTC always, and the job's IANA zone for fire times.
import type { JobTarget } from "./types";

/** The date and 24-hour time fields every console timestamp is joined from (joinParts). */
const WALL_CLOCK_FIELDS = {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
} as const;

const utcFormat = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC", ...WALL_CLOCK_FIELDS });

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", { timeZone, ...WALL_CLOCK_FIELDS, timeZoneName: "short" });
    zoneFormats.set(timeZone, format);
  }
  return format;
}

function joinParts(parts: Intl.DateTimeFormatPart[]): string {
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  const zone = get("timeZoneName");
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")}${zone ? ` ${zone}` : ""}`;
}

/** "2026-12-01 14:00:00 UTC", or the input unchanged if it is not a timestamp. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${joinParts(utcFormat.formatToParts(date))} UTC`;
}

/** "2026-12-01 09:00:00 EST (America/New_York)". */
export function formatInZone(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return `${joinParts(zoneFormat(timeZone).formatToParts(date))} (${timeZone})`;
  } catch {
    return formatUtc(iso);
  }
}

/** "14:05 UTC" for chart axes. */
export function formatUtcMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(11, 16)} UTC`;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return <time datetime={iso}>{formatUtc(iso)}</time>;
}

export function ZonedTime({ iso, zone }: { iso: string; zone: string }) {
  return <time datetime={iso}>{formatInZone(iso, zone)}</time>;
}

/** 12 -> "12 ms", 1500 -> "1.50 s". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** How the console names each target kind (the form's choices and the job detail). */
export const TARGET_KIND_LABELS: Record<string, string> = {
  http: "HTTP request",
  service: "Service binding (a Worker)",
  workflow: "Workflow instance",
  queue: "Queue message",
};

/** A job's target in one line: `POST https://…`, `service BILLING: POST /hook`, `workflow FLOW`. */
export function describeTarget(target: JobTarget): string {
  if (target.type === "http" || target.type === undefined) return `${target.method} ${target.url}`;
  if (target.type === "service") return `service ${target.binding}: ${target.method} ${target.path}`;
  return `${target.type} ${target.binding}`;
}

export function describeSchedule(schedule: { type: string; [key: string]: unknown }): string {
  if (schedule.type === "cron") return `cron ${String(schedule.expr)} (${String(schedule.timezone)})`;
  if (schedule.type === "interval") return `every ${String(schedule.every)}`;
  if (schedule.type === "once" && schedule.at) return `once at ${formatUtc(String(schedule.at))}`;
  return `once after ${String(schedule.delay ?? "?")}`;
}

/** Every spec of a job (`schedule` or `schedules`), described, joined with " + ". */
export function describeSchedules(job: {
  schedule?: { type: string; [key: string]: unknown } | undefined;
  schedules?: { type: string; [key: string]: unknown }[] | undefined;
}): string {
  const specs = job.schedules ?? (job.schedule ? [job.schedule] : []);
  return specs.map(describeSchedule).join(" + ");
}

/** The zone of a job's first cron spec, if any (the one its fire times are shown in). */
export function jobZone(job: {
  schedule?: { type: string; timezone?: unknown } | undefined;
  schedules?: { type: string; timezone?: unknown }[] | undefined;
}): string | null {
  const specs = job.schedules ?? (job.schedule ? [job.schedule] : []);
  for (const spec of specs) {
    const zone = scheduleZone(spec);
    if (zone) return zone;
  }
  return null;
}

export function scheduleZone(schedule: { type: string; timezone?: unknown }): string | null {
  return schedule.type === "cron" && typeof schedule.timezone === "string" ? schedule.timezone : null;
}
