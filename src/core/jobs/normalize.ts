import { durationMs } from "../common/duration";
import { compileExclusions, type ExclusionSet } from "../schedules/exclusions";
import { checkedFireTimes, type SearchAllowance, type SpecIssue } from "../schedules/schedule-check";
import { activePeriodIssue } from "./active-period";
import { type JobSpec, type Schedule, scheduleSchema } from "./job-spec";
import { windowReachIssue } from "./run-reach";
import { exclusionIssues, exclusionSetsOf, scheduleChoiceIssues } from "./schedule-set-check";

export type { SpecIssue };

export type NormalizeResult = { ok: true; spec: JobSpec } | { ok: false; issues: SpecIssue[] };

export interface NormalizeOptions {
  /** Reject a one-shot `at` further in the past than the misfire grace (create, or a new schedule). */
  rejectPastOnce?: boolean;
  /** Search units shared with the rest of the request (a batch); one search's budget without. */
  searchAllowance?: SearchAllowance;
  /**
   * The tenant's calendars by name, when the caller loaded them: unknown names in `calendars`
   * are refused, and a job whose every instant is excluded too.
   */
  calendars?: ReadonlyMap<string, ExclusionSet>;
  /** What an interval without anchor (and no start_at) is anchored at; default `nowMs`. */
  anchorMs?: number;
  /** What a one-shot's `delay` counts from; default `nowMs` (a preview from another time: now). */
  delayFromMs?: number;
}

/**
 * The fields that decide when a job runs. A preview has them too (without a start, an end or a
 * misfire policy of its own): both are checked by `normalizeTiming`, so a preview refuses
 * exactly what a create refuses, with the same errors.
 */
export type TimingFields = Pick<
  JobSpec,
  | "schedule"
  | "schedules"
  | "calendars"
  | "exclude"
  | "window"
  | "flexible_window"
  | "start_at"
  | "end_at"
  | "misfire"
  | "jitter"
>;

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
 * The checks that need `now` or several fields, on whatever fields of a body are valid on their
 * own (see `validJobFields`): a bad name or target never hides a one-shot in the past or an end
 * before the start. Every issue is returned, none stops the others.
 * `jobSpecIssues({ start_at: "2026-02-01T00:00:00Z", end_at: "2026-01-01T00:00:00Z" }, nowMs)`
 * -> `[{ path: "end_at", message: "must be after start_at" }]`.
 */
export function jobSpecIssues(
  fields: Partial<JobSpec>,
  nowMs: number,
  options: NormalizeOptions = {},
): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const { start_at: startAt, end_at: endAt, schedule, misfire } = fields;
  if (typeof startAt === "string" && typeof endAt === "string" && Date.parse(endAt) <= Date.parse(startAt)) {
    issues.push({ path: "end_at", message: "must be after start_at" });
  }
  issues.push(...scheduleChoiceIssues(fields));
  const schedules = fields.schedules ?? (schedule === undefined ? [] : [schedule]);
  const pathOf = (index: number) => (fields.schedules === undefined ? "schedule" : `schedules.${index}`);
  schedules.forEach((one, index) => {
    issues.push(...scheduleIssues(one, pathOf(index), misfire, nowMs, options));
  });
  const anchorMs = typeof startAt === "string" ? Date.parse(startAt) : (options.anchorMs ?? nowMs);
  const normalized = schedules.map((one) => normalizeSchedule(one, delayBaseMs(nowMs, options), anchorMs));
  issues.push(...exclusionIssues(fields, normalized, nowMs, options, issues.length === 0));
  return issues;
}

function scheduleIssues(
  schedule: Schedule,
  path: string,
  misfire: JobSpec["misfire"] | undefined,
  nowMs: number,
  options: NormalizeOptions,
): SpecIssue[] {
  const issues: SpecIssue[] = [];
  if (schedule.type === "once" && misfire !== undefined && (options.rejectPastOnce ?? true)) {
    const atMs =
      schedule.at !== undefined
        ? Date.parse(schedule.at)
        : delayBaseMs(nowMs, options) + durationMs(schedule.delay ?? 0);
    if (atMs < nowMs - durationMs(misfire.grace)) {
      issues.push({
        path: schedule.delay !== undefined ? `${path}.delay` : `${path}.at`,
        message: `is in the past by more than the misfire grace (${String(misfire.grace)})`,
      });
    }
  }
  // A cron that can never fire from now (every match in a DST gap it skips), or whose next fire
  // costs more than the search budget, is refused rather than stored as a silent job.
  const reach = checkedFireTimes(
    normalizeSchedule(schedule, delayBaseMs(nowMs, options), options.anchorMs ?? nowMs),
    nowMs,
    1,
    options.searchAllowance,
  );
  if (!reach.ok) {
    issues.push(...reach.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^schedule/, path) })));
  }
  return issues;
}

/**
 * The reach checks (can never fire, too costly) of each element of a `schedules` list that is
 * valid on its own, for a body whose list as a whole did not parse: otherwise one spec's syntax
 * error would hide that another can never fire, and the caller would fix one at a time.
 *
 * @example scheduleElementIssues([{ type: "cron", expr: "0 0 30 2 *" }, gapOnlyCron], misfire, now)
 * // [{ path: "schedules.1.expr", message: "expression can never fire in Europe/London: ..." }]
 */
export function scheduleElementIssues(
  rawSchedules: unknown,
  misfire: JobSpec["misfire"] | undefined,
  nowMs: number,
  options: NormalizeOptions = {},
): SpecIssue[] {
  if (!Array.isArray(rawSchedules)) return [];
  return rawSchedules.flatMap((raw, index) => {
    const parsed = scheduleSchema.safeParse(raw);
    return parsed.success ? scheduleIssues(parsed.data, `schedules.${index}`, misfire, nowMs, options) : [];
  });
}

function delayBaseMs(nowMs: number, options: NormalizeOptions): number {
  return options.delayFromMs ?? nowMs;
}

/**
 * The spec as stored and sent to shards, plus the checks that need `now` (normalizeTiming). Pure:
 * the reference time is a parameter.
 * `normalizeJobSpec(spec, Date.parse("2026-01-01T00:00:00Z"))` -> `{ok: true, spec}` or
 * `{ok: false, issues: [{path: "schedule.at", message: "..."}]}`.
 */
export function normalizeJobSpec(
  spec: JobSpec,
  nowMs: number,
  options: NormalizeOptions = {},
): NormalizeResult {
  const timing = normalizeTiming(spec, nowMs, options);
  return timing.ok ? { ok: true, spec: timing.fields } : timing;
}

/**
 * The timing fields normalized (instants in UTC, specs as normalizeSchedule makes them) once
 * every check passes: each spec can fire, the calendars exist, and something is left to run
 * after the exclusions (jobSpecIssues), inside [start_at, end_at] (activePeriodIssue) and inside
 * the delivery window (windowReachIssue), each from `nowMs`. The one check of a create, an
 * edit, a batch item and a preview (a job created at its `from`).
 *
 * @example normalizeTiming({ ...daily12UTC, window: { between: ["08:00", "09:00"], outside: "skip" } }, nowMs)
 * // { ok: false, issues: [{ path: "window", message: "skips every instant of the schedule ..." }] }
 */
export function normalizeTiming<T extends TimingFields>(
  fields: T,
  nowMs: number,
  options: NormalizeOptions = {},
): { ok: true; fields: T } | { ok: false; issues: SpecIssue[] } {
  const issues = jobSpecIssues(fields, nowMs, options);
  if (issues.length > 0) return { ok: false, issues };
  const startAt = utcIsoOrNull(fields.start_at);
  const endAt = utcIsoOrNull(fields.end_at);
  const anchorMs = startAt === null ? (options.anchorMs ?? nowMs) : Date.parse(startAt);
  const delayFromMs = delayBaseMs(nowMs, options);
  const normalized = { ...fields, start_at: startAt, end_at: endAt };
  if (fields.schedule !== undefined)
    normalized.schedule = normalizeSchedule(fields.schedule, delayFromMs, anchorMs);
  if (fields.schedules !== undefined) {
    normalized.schedules = fields.schedules.map((schedule) =>
      normalizeSchedule(schedule, delayFromMs, anchorMs),
    );
  }
  const windowIssue = activePeriodIssue(normalized);
  if (windowIssue !== null) return { ok: false, issues: [windowIssue] };
  const exclusions = compileExclusions(exclusionSetsOf(normalized, options.calendars ?? new Map()));
  const reachIssue = windowReachIssue(normalized, nowMs, exclusions);
  if (reachIssue !== null) return { ok: false, issues: [reachIssue] };
  return { ok: true, fields: normalized };
}
