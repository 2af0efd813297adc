// Several schedule specs on one job (Temporal's and Quartz's "several triggers"): their instants
// are unioned and deduplicated, so two specs hitting the same instant fire it once, under one
// idempotency key. Exclusions then decide which of those instants run.
import { type CompiledExclusions, excludedUntilMs, isExcluded } from "./exclusions";
import type { Schedule } from "./job-spec";
import { nextFireTimes } from "./schedule";

/**
 * Instants examined, per request, to find fire times outside the exclusions (previews,
 * `next_fire_times`, create's "can it fire at all"). With the per-day memo of isExcluded this is
 * a few milliseconds; it bounds a minutely spec behind a two-week holiday (20,160 instants).
 */
export const EXCLUSION_SEARCH_LIMIT = 25_000;
/** Excluded instants a preview lists at most (the search skips the rest of an excluded day). */
export const MAX_LISTED_EXCLUSIONS = 1_000;
/** Excluded instants of one excluded day examined (and listed) before the search jumps past it. */
const LISTED_PER_EXCLUDED_DAY = 24;
/** Nor further than this past the start: a weekly spec behind a weekly exclusion stops in 5 years. */
export const EXCLUSION_SEARCH_HORIZON_MS = 5 * 366 * 86_400_000;
const SEARCH_BATCH = 64;

/** The job's specs, whichever field carried them. */
export function schedulesOf(spec: {
  schedule?: Schedule | undefined;
  schedules?: Schedule[] | undefined;
}): Schedule[] {
  if (spec.schedules !== undefined) return spec.schedules;
  return spec.schedule === undefined ? [] : [spec.schedule];
}

/**
 * The next `count` instants of the union of `schedules`, strictly after `afterMs`, ascending and
 * without duplicates. The first `count` of a union are among the first `count` of each spec, so
 * this costs `schedules.length` single searches.
 *
 * @example unionFireTimes([{ type: "cron", expr: "0 9 * * *", timezone: "UTC" },
 *   { type: "cron", expr: "0 9,17 * * *", timezone: "UTC" }], Date.parse("2026-01-01T00:00:00Z"), 3)
 * // [09:00, 17:00, next day 09:00]: 09:00 once, though both specs match it
 */
export function unionFireTimes(schedules: readonly Schedule[], afterMs: number, count: number): number[] {
  const [only] = schedules;
  if (schedules.length === 1 && only !== undefined) return nextFireTimes(only, afterMs, count);
  const instants = new Set<number>();
  for (const schedule of schedules)
    for (const atMs of nextFireTimes(schedule, afterMs, count)) instants.add(atMs);
  return [...instants].sort((a, b) => a - b).slice(0, count);
}

export interface IncludedSearch {
  /** Up to `count` instants outside the exclusions, ascending. */
  fireTimesMs: number[];
  /**
   * Excluded instants met before the last fire time: up to 24 of each excluded day (the search
   * jumps past the rest), at most MAX_LISTED_EXCLUSIONS in all.
   */
  excludedMs: number[];
  /** True when the search stopped at its limit or horizon with fewer than `count` found. */
  exhausted: boolean;
}

/**
 * The next `count` instants of the union that are not excluded, examining at most
 * EXCLUSION_SEARCH_LIMIT instants and none past EXCLUSION_SEARCH_HORIZON_MS.
 *
 * @example includedFireTimes(weekdaysAt9, compileExclusions([ukHolidays]), fromMs, 5)
 * // { fireTimesMs: [five working days at 09:00], excludedMs: [the holidays in between], exhausted: false }
 */
export function includedFireTimes(
  schedules: readonly Schedule[],
  exclusions: CompiledExclusions,
  afterMs: number,
  count: number,
): IncludedSearch {
  const search: IncludedSearch = { fireTimesMs: [], excludedMs: [], exhausted: false };
  let cursorMs = afterMs;
  let examined = 0;
  let day = { untilMs: Number.NaN, seen: 0 };
  const horizonMs = afterMs + EXCLUSION_SEARCH_HORIZON_MS;
  while (search.fireTimesMs.length < count) {
    if (examined >= EXCLUSION_SEARCH_LIMIT || cursorMs > horizonMs) {
      search.exhausted = true;
      break;
    }
    const wanted = exclusions.sets.length === 0 ? count - search.fireTimesMs.length : SEARCH_BATCH;
    const batch = unionFireTimes(schedules, cursorMs, Math.min(wanted, EXCLUSION_SEARCH_LIMIT - examined));
    let nextCursorMs = batch.at(-1);
    for (const atMs of batch) {
      if (search.fireTimesMs.length >= count) break;
      // The bound holds per instant: a batch of a yearly spec spans decades past it.
      if (atMs > horizonMs) return { ...search, exhausted: true };
      examined += 1;
      if (!isExcluded(atMs, exclusions)) {
        search.fireTimesMs.push(atMs);
        continue;
      }
      if (search.excludedMs.length < MAX_LISTED_EXCLUSIONS) search.excludedMs.push(atMs);
      const untilMs = excludedUntilMs(atMs, exclusions) - 1;
      day = untilMs === day.untilMs ? { untilMs, seen: day.seen + 1 } : { untilMs, seen: 1 };
      // Past a few instants, the rest of an excluded day is excluded too: continue after it.
      if (day.seen >= LISTED_PER_EXCLUDED_DAY && untilMs > atMs) {
        nextCursorMs = untilMs;
        break;
      }
    }
    if (nextCursorMs === undefined || nextCursorMs <= cursorMs) break;
    cursorMs = nextCursorMs;
  }
  return search;
}
