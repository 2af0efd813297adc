// Several schedule specs on one job (Temporal's and Quartz's "several triggers"): their instants
// are unioned and deduplicated, so two specs hitting the same instant fire it once, under one
// idempotency key. Exclusions then decide which of those instants run.

import { type CompiledExclusions, excludedUntilMs, isExcluded } from "./exclusions";
import { nextFireTimes } from "./schedule";
import type { Schedule } from "./schedule-spec";
import {
  isPastHorizon,
  noteRun,
  noteSkip,
  SEARCH_HORIZON_MS,
  type SearchStop,
  SKIPPED_INSTANTS_LIMIT,
  startSearch,
} from "./search-bound";

/** The search's bound (search-bound.ts), under the names its callers knew it by. */
export const EXCLUSION_SEARCH_LIMIT = SKIPPED_INSTANTS_LIMIT;
export const EXCLUSION_SEARCH_HORIZON_MS = SEARCH_HORIZON_MS;
/** Excluded instants a preview lists at most (the search skips the rest of an excluded day). */
export const MAX_LISTED_EXCLUSIONS = 1_000;
/** Excluded instants of one excluded day examined (and listed) before the search jumps past it. */
export const LISTED_PER_EXCLUDED_DAY = 24;
/** Instants asked of the specs at a time while exclusions skip some. */
export const SEARCH_BATCH = 64;

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
  /** True when the search stopped at its bound with fewer than `count` found (`stop` says why). */
  exhausted: boolean;
  /** Why fewer than `count` were found although the specs may have more; null otherwise. */
  stop: SearchStop | null;
}

/**
 * The next `count` instants of the union that are not excluded. Without exclusions, simply the
 * union's next `count`. With them, the search for each next instant examines at most
 * SKIPPED_INSTANTS_LIMIT excluded instants in all and looks no further than SEARCH_HORIZON_MS
 * past the previous instant found (or `afterMs`); where that stops it, `stop` says so.
 *
 * @example includedFireTimes(weekdaysAt9, compileExclusions([ukHolidays]), fromMs, 5)
 * // { fireTimesMs: [five working days at 09:00], excludedMs: [the holidays in between], exhausted: false, stop: null }
 */
export function includedFireTimes(
  schedules: readonly Schedule[],
  exclusions: CompiledExclusions,
  afterMs: number,
  count: number,
): IncludedSearch {
  if (exclusions.sets.length === 0) {
    const fireTimesMs = unionFireTimes(schedules, afterMs, count);
    return { fireTimesMs, excludedMs: [], exhausted: false, stop: null };
  }
  const search: IncludedSearch = { fireTimesMs: [], excludedMs: [], exhausted: false, stop: null };
  const bound = startSearch(afterMs);
  let cursorMs = afterMs;
  let day = { untilMs: Number.NaN, seen: 0 };
  while (search.fireTimesMs.length < count && bound.stop === null) {
    const batch = unionFireTimes(schedules, cursorMs, SEARCH_BATCH);
    let nextCursorMs = batch.at(-1);
    for (const atMs of batch) {
      if (search.fireTimesMs.length >= count || isPastHorizon(bound, atMs)) break;
      if (!isExcluded(atMs, exclusions)) {
        search.fireTimesMs.push(atMs);
        noteRun(bound, atMs);
        continue;
      }
      if (!noteSkip(bound, atMs)) break;
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
  if (search.fireTimesMs.length < count && bound.stop !== null) {
    search.stop = bound.stop;
    search.exhausted = true;
  }
  return search;
}
