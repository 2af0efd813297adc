// Exclusions: instants a job must not fire at, given as rules on local dates in a time zone
// (holidays, weekends, a shutdown week). Named calendars per tenant and a job's inline `exclude`
// share one shape; a job's instants are checked against all of them.
import { DateTime } from "luxon";
import { z } from "zod";
import { resolveWallTime, zoneOffsets } from "../cron/zone";
import { zoneNameProblem } from "../cron/zone-name";

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export const MAX_EXCLUSION_RULES = 500;
export const MAX_CALENDARS_PER_JOB = 10;

const localDate = z.iso.date({ message: "must be a date such as 2026-12-25" });

export const exclusionRuleSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("date"), date: localDate }),
  z
    .strictObject({ type: z.literal("range"), from: localDate, to: localDate })
    .refine((range) => range.to >= range.from, { path: ["to"], message: "must not be before from" }),
  z.strictObject({
    type: z.literal("weekly"),
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1)
      .max(7)
      .refine((days) => new Set(days).size === days.length, { message: "must not repeat a day" }),
  }),
]);

export const zoneSchema = z.string().superRefine((tz, ctx) => {
  const problem = zoneNameProblem(tz);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});

/** A set of rules in one zone: a calendar's body, or a job's inline `exclude`. */
export const exclusionSetSchema = z.strictObject({
  timezone: zoneSchema,
  rules: z.array(exclusionRuleSchema).min(1).max(MAX_EXCLUSION_RULES),
});

export const calendarNameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    "must be 1-63 lowercase letters, digits, - or _, starting with a letter or digit",
  );

/** `PUT /v1/calendars/{name}`: a calendar's body (the name is in the path). */
export const calendarReplaceSchema = z.strictObject({
  description: z.string().max(500).default(""),
  timezone: zoneSchema,
  rules: z.array(exclusionRuleSchema).min(1).max(MAX_EXCLUSION_RULES),
});

/** `POST /v1/calendars`. */
export const calendarCreateSchema = calendarReplaceSchema.extend({ name: calendarNameSchema });

export type ExclusionRule = z.infer<typeof exclusionRuleSchema>;
export type ExclusionSet = z.infer<typeof exclusionSetSchema>;
/** An exclusion set as a shard holds it: a named calendar, or the job's own (`name` null). */
export type NamedExclusionSet = ExclusionSet & { name: string | null };

interface CompiledSet {
  zone: string;
  dates: Set<string>;
  ranges: [string, string][];
  weekdays: Set<number>;
  /** The local day last evaluated, as epoch bounds: consecutive instants mostly share a day. */
  day: { startMs: number; endMs: number; excluded: boolean } | null;
}

/** Exclusion sets prepared for many lookups; build once per job version, not per instant. */
export interface CompiledExclusions {
  sets: CompiledSet[];
}

export const NO_EXCLUSIONS: CompiledExclusions = { sets: [] };

/** @example compileExclusions([{ timezone: "UTC", rules: [{ type: "weekly", days: ["sat", "sun"] }] }]) */
export function compileExclusions(sets: readonly ExclusionSet[]): CompiledExclusions {
  return {
    sets: sets.map((set) => ({
      zone: set.timezone,
      dates: new Set(set.rules.flatMap((rule) => (rule.type === "date" ? [rule.date] : []))),
      ranges: set.rules.flatMap((rule) =>
        rule.type === "range" ? [[rule.from, rule.to] as [string, string]] : [],
      ),
      weekdays: new Set(
        set.rules.flatMap((rule) =>
          rule.type === "weekly" ? rule.days.map((day) => WEEKDAYS.indexOf(day) + 1) : [],
        ),
      ),
      day: null,
    })),
  };
}

/**
 * True when the instant's local date, in any set's zone, is excluded by one of its rules. A date
 * is the whole local day, DST days included (23 or 25 hours long).
 *
 * @example isExcluded(Date.parse("2026-12-25T09:00:00Z"),
 *   compileExclusions([{ timezone: "Europe/London", rules: [{ type: "date", date: "2026-12-25" }] }])) // true
 */
export function isExcluded(instantMs: number, exclusions: CompiledExclusions): boolean {
  return exclusions.sets.some((set) => setExcludes(set, instantMs));
}

/**
 * The end (exclusive, epoch ms) of the excluded local day the instant falls in: searches for the
 * next instant that runs jump there instead of examining every excluded instant (a secondly spec
 * behind a holiday is 86,400 of them). `instantMs` itself when nothing excludes it.
 */
export function excludedUntilMs(instantMs: number, exclusions: CompiledExclusions): number {
  let untilMs = instantMs;
  for (const set of exclusions.sets) {
    if (setExcludes(set, instantMs) && set.day !== null) untilMs = Math.max(untilMs, set.day.endMs);
  }
  return untilMs;
}

function setExcludes(set: CompiledSet, instantMs: number): boolean {
  if (set.day !== null && instantMs >= set.day.startMs && instantMs < set.day.endMs) return set.day.excluded;
  const local = DateTime.fromMillis(instantMs, { zone: set.zone });
  const date = local.toISODate() ?? "";
  const excluded =
    set.dates.has(date) ||
    set.weekdays.has(local.weekday) ||
    set.ranges.some(([from, to]) => date >= from && date <= to);
  const dateWallMs = Date.UTC(local.year, local.month - 1, local.day);
  set.day = {
    startMs: firstInstantOfWall(set.zone, dateWallMs),
    endMs: firstInstantOfWall(set.zone, dateWallMs + DAY_MS),
    excluded,
  };
  return excluded;
}

const DAY_MS = 86_400_000;

/**
 * The first instant a date's midnight (given as wall-clock ms) occurs in the zone. A repeated hour
 * at the start of a day (01:00 back to 00:00, America/Havana) makes midnight occur twice, and
 * the day begins at the first; luxon's startOf("day") takes the second. A skipped midnight
 * (00:00 forward to 01:00) begins the day at the transition.
 */
function firstInstantOfWall(timezone: string, wallMs: number): number {
  const wall = resolveWallTime(zoneOffsets(timezone), wallMs);
  if (wall.kind === "single") return wall.atMs;
  return wall.kind === "overlap" ? wall.firstMs : wall.shiftedAtMs;
}
