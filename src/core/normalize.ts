import { durationMs } from "./duration";
import { fireWindowIssue } from "./fire-window";
import type { JobSpec, Schedule } from "./job-spec";

export interface SpecIssue {
  path: string;
  message: string;
}

export type NormalizeResult = { ok: true; spec: JobSpec } | { ok: false; issues: SpecIssue[] };

export interface NormalizeOptions {
  /** Reject a one-shot `at` further in the past than the misfire grace (create, or a new schedule). */
  rejectPastOnce?: boolean;
}

function utcIso(instant: string): string {
  return new Date(Date.parse(instant)).toISOString();
}

function utcIsoOrNull(instant: string | null): string | null {
  return instant === null ? null : utcIso(instant);
}

/**
 * Normalizes a schedule against a reference time: once+delay becomes once+at, an interval
 * without anchor is anchored at `defaultAnchorMs`, a cron gets its default DST policy, and
 * instants are rewritten in UTC with milliseconds.
 * `normalizeSchedule({type: "once", delay: "2h"}, 0, 0)` -> `{type: "once", at: "1970-01-01T02:00:00.000Z"}`.
 */
export function normalizeSchedule(schedule: Schedule, nowMs: number, defaultAnchorMs: number): Schedule {
  switch (schedule.type) {
    case "once": {
      const atMs =
        schedule.at !== undefined ? Date.parse(schedule.at) : nowMs + durationMs(schedule.delay ?? 0);
      return { type: "once", at: new Date(atMs).toISOString() };
    }
    case "interval": {
      const anchor =
        schedule.anchor !== undefined ? utcIso(schedule.anchor) : new Date(defaultAnchorMs).toISOString();
      return { type: "interval", every: schedule.every, anchor };
    }
    case "cron":
      return { ...schedule, dst: schedule.dst ?? { gap: "shift", overlap: "first" } };
  }
}

/**
 * The spec as stored and sent to shards, plus the checks that need `now`. Pure: the reference
 * time is a parameter.
 * `normalizeJobSpec(spec, Date.parse("2026-01-01T00:00:00Z"))` -> `{ok: true, spec}` or
 * `{ok: false, issues: [{path: "schedule.at", message: "..."}]}`.
 */
export function normalizeJobSpec(
  spec: JobSpec,
  nowMs: number,
  options: NormalizeOptions = {},
): NormalizeResult {
  const issues: SpecIssue[] = [];
  const startAt = utcIsoOrNull(spec.start_at);
  const endAt = utcIsoOrNull(spec.end_at);
  const anchorMs = startAt === null ? nowMs : Date.parse(startAt);
  const schedule = normalizeSchedule(spec.schedule, nowMs, anchorMs);
  if (startAt !== null && endAt !== null && Date.parse(endAt) < Date.parse(startAt)) {
    issues.push({ path: "end_at", message: "must not be before start_at" });
  }
  if (schedule.type === "once" && schedule.at !== undefined && (options.rejectPastOnce ?? true)) {
    const graceMs = durationMs(spec.misfire.grace);
    if (Date.parse(schedule.at) < nowMs - graceMs) {
      issues.push({
        path:
          spec.schedule.type === "once" && spec.schedule.delay !== undefined
            ? "schedule.delay"
            : "schedule.at",
        message: `is in the past by more than the misfire grace (${String(spec.misfire.grace)})`,
      });
    }
  }
  const normalized = { ...spec, start_at: startAt, end_at: endAt, schedule };
  const windowIssue = fireWindowIssue(normalized);
  if (windowIssue !== null) issues.push(windowIssue);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, spec: normalized };
}
