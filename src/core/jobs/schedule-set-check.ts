// The checks of a job's specs and exclusions that need several fields, the tenant's calendars or
// `now`: exactly one of `schedule`/`schedules`, calendars that exist, and an instant left to run.

import { compileExclusions, type ExclusionSet } from "../schedules/exclusions";
import type { SpecIssue } from "../schedules/schedule-check";
import { EXCLUSION_SEARCH_LIMIT, includedFireTimes } from "../schedules/schedule-set";
import type { JobSpec, Schedule } from "./job-spec";

const CHOOSE_ONE = "give exactly one of `schedule` (one spec) or `schedules` (several)";

function givenFields(body: unknown): { schedule: boolean; schedules: boolean } | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const given = (key: string) =>
    Object.hasOwn(body, key) && (body as Record<string, unknown>)[key] !== undefined;
  return { schedule: given("schedule"), schedules: given("schedules") };
}

/**
 * `schedule` and `schedules` are alternatives: both given is refused.
 *
 * @example scheduleChoiceIssues({ schedule: {...}, schedules: [...] }) // [{ path: "schedules", message: "give exactly one ..." }]
 */
export function scheduleChoiceIssues(body: unknown): SpecIssue[] {
  const given = givenFields(body);
  return given?.schedule && given.schedules ? [{ path: "schedules", message: CHOOSE_ONE }] : [];
}

/**
 * Neither given is refused too; checked on the raw body, since a parsed body that failed
 * elsewhere cannot tell an absent spec from an invalid one.
 */
export function missingScheduleIssues(body: unknown): SpecIssue[] {
  const given = givenFields(body);
  return given !== null && !given.schedule && !given.schedules
    ? [{ path: "schedule", message: `is required: ${CHOOSE_ONE}` }]
    : [];
}

/** The exclusion sets of a job: its calendars (resolved by name) and its inline `exclude`. */
export function exclusionSetsOf(
  spec: Pick<JobSpec, "calendars" | "exclude">,
  calendars: ReadonlyMap<string, ExclusionSet>,
): ExclusionSet[] {
  const sets = spec.calendars.flatMap((name) => {
    const calendar = calendars.get(name);
    return calendar === undefined ? [] : [calendar];
  });
  return spec.exclude === null ? sets : [...sets, spec.exclude];
}

/**
 * Calendars named but not defined (when the caller loaded the tenant's calendars), and, when
 * `checkReach`, a job whose next EXCLUSION_SEARCH_LIMIT instants are all excluded: refused, like
 * a cron that can never fire, rather than stored as a job that only ever records skips.
 */
export function exclusionIssues(
  fields: Partial<JobSpec>,
  schedules: readonly Schedule[],
  nowMs: number,
  options: { calendars?: ReadonlyMap<string, ExclusionSet> },
  checkReach: boolean,
): SpecIssue[] {
  const known = options.calendars;
  if (known === undefined) return [];
  const issues: SpecIssue[] = [];
  (fields.calendars ?? []).forEach((name, index) => {
    if (!known.has(name)) issues.push({ path: `calendars.${index}`, message: `no calendar named ${name}` });
  });
  if (!checkReach || issues.length > 0 || schedules.length === 0) return issues;
  const sets = exclusionSetsOf({ calendars: fields.calendars ?? [], exclude: fields.exclude ?? null }, known);
  if (sets.length === 0) return issues;
  const search = includedFireTimes(schedules, compileExclusions(sets), nowMs, 1);
  // Exhausted: the bound was reached. No instant and some excluded: the specs ran out (a
  // one-shot, an `end`) with every instant they had left excluded.
  if (search.exhausted || (search.fireTimesMs.length === 0 && search.excludedMs.length > 0)) {
    const reach = search.exhausted
      ? `every instant of the schedule that was examined (up to ${EXCLUSION_SEARCH_LIMIT}, within 5 years)`
      : "every instant the schedule has";
    // Each field that excludes is named: together they leave nothing.
    const given = [
      ...((fields.calendars ?? []).length > 0 ? ["calendars"] : []),
      ...(fields.exclude ? ["exclude"] : []),
    ];
    for (const path of given) issues.push({ path, message: `excludes ${reach}: the job would never run` });
  }
  return issues;
}
