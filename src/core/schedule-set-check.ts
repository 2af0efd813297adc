// The checks of a job's specs and exclusions that need several fields, the tenant's calendars or
// `now`: exactly one of `schedule`/`schedules`, calendars that exist, and an instant left to run.
import { compileExclusions, type ExclusionSet } from "./exclusions";
import type { JobSpec, Schedule } from "./job-spec";
import type { SpecIssue } from "./schedule-check";
import { EXCLUSION_SEARCH_LIMIT, includedFireTimes } from "./schedule-set";

const CHOOSE_ONE = "give exactly one of `schedule` (one spec) or `schedules` (several)";

/**
 * `schedule` and `schedules` are alternatives. Given the raw body, also refuses neither (a parsed
 * body that failed elsewhere cannot tell "absent" from "invalid").
 *
 * @example scheduleChoiceIssues({ schedule: {...}, schedules: [...] }) // [{ path: "schedules", message: "give exactly one ..." }]
 */
export function scheduleChoiceIssues(body: unknown, options: { refuseNeither?: boolean } = {}): SpecIssue[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return [];
  const given = (key: string) =>
    Object.hasOwn(body, key) && (body as Record<string, unknown>)[key] !== undefined;
  if (given("schedule") && given("schedules")) return [{ path: "schedules", message: CHOOSE_ONE }];
  if (options.refuseNeither && !given("schedule") && !given("schedules"))
    return [{ path: "schedule", message: `is required: ${CHOOSE_ONE}` }];
  return [];
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
  if (search.exhausted) {
    issues.push({
      path: fields.exclude ? "exclude" : "calendars",
      message: `excludes every instant of the schedule that was examined (up to ${EXCLUSION_SEARCH_LIMIT}, within 5 years): the job would never run`,
    });
  }
  return issues;
}
