// The instants of a job that will actually run, in order, past its exclusions and its delivery
// window: what `next_fire_times`, the preview and create's "can it run at all" read. One search,
// so the three always agree (and agree with the shard, which places each instant the same way).
import { type CompiledWindow, nextWindowOpeningMs } from "../schedules/delivery-window";
import { type CompiledExclusions, excludedUntilMs, NO_EXCLUSIONS } from "../schedules/exclusions";
import { MAX_LISTED_EXCLUSIONS, SEARCH_BATCH, schedulesOf, unionFireTimes } from "../schedules/schedule-set";
import { isPastHorizon, noteRun, noteSkip, type SearchStop, startSearch } from "../schedules/search-bound";
import { type JobFire, type TimingSpec, upcomingFires, windowOf } from "./job-timeline";

/** Instants of one closed window period examined (and listed) before the search jumps past it. */
const LISTED_PER_CLOSED_PERIOD = 24;

export interface RunFireSearch {
  /** Up to `count` fires that run, ascending. */
  fires: JobFire[];
  /**
   * Instants met on the way that the delivery window skips (`skipReason` set): up to 24 of each
   * closed period (the search jumps past the rest), at most MAX_LISTED_EXCLUSIONS in all.
   */
  windowSkips: JobFire[];
  /** Why fewer than `count` were found although the specs may have more; null otherwise. */
  stop: SearchStop | null;
}

/**
 * The job's next `count` fires that run, strictly after `afterMs` (see upcomingFires), without
 * the instants its exclusions or its delivery window skip. With neither, simply its next
 * `count`. With either, bounded as search-bound.ts says: at most SKIPPED_INSTANTS_LIMIT skipped
 * instants in all, and no further than 5 years past the previous fire that runs; `stop` says
 * where that cut the list short.
 *
 * @example searchRunFires(dailyNoonWithWindow8to9Skip, "job_1", nowMs, 5, NO_EXCLUSIONS)
 * // { fires: [], windowSkips: [24 noons], stop: { reason: "horizon", searchedThroughMs: ... } }
 */
export function searchRunFires(
  spec: TimingSpec,
  jobId: string,
  afterMs: number,
  count: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): RunFireSearch {
  const window = windowOf(spec);
  if (exclusions.sets.length === 0 && window === null) {
    return { fires: upcomingFires(spec, jobId, afterMs, count, exclusions), windowSkips: [], stop: null };
  }
  const found: RunFireSearch = { fires: [], windowSkips: [], stop: null };
  const startMs = spec.start_at === null ? afterMs : Math.max(afterMs, Date.parse(spec.start_at) - 1);
  const bound = startSearch(startMs);
  let cursorMs = afterMs;
  let closedRun = 0;
  // An excluded day, or the rest of a closed period, holds nothing that runs: passed over.
  let passedThroughMs = Number.NEGATIVE_INFINITY;
  while (found.fires.length < count && bound.stop === null) {
    const batch = upcomingFires(spec, jobId, cursorMs, SEARCH_BATCH, exclusions);
    const lastMs = batch.at(-1)?.scheduledAtMs;
    for (const fire of batch) {
      if (fire.scheduledAtMs <= passedThroughMs) continue;
      if (found.fires.length >= count || isPastHorizon(bound, fire.scheduledAtMs)) break;
      if (!fire.excluded) {
        found.fires.push(fire);
        noteRun(bound, fire.scheduledAtMs);
        closedRun = 0;
        continue;
      }
      if (!noteSkip(bound, fire.scheduledAtMs)) break;
      const jumpMs =
        fire.skipReason === undefined
          ? excludedUntilMs(fire.scheduledAtMs, exclusions) - 1
          : windowSkipJumpMs(spec, window, fire, ++closedRun);
      if (fire.skipReason !== undefined && found.windowSkips.length < MAX_LISTED_EXCLUSIONS)
        found.windowSkips.push(fire);
      if (jumpMs > fire.scheduledAtMs) {
        passedThroughMs = jumpMs;
        closedRun = 0;
      }
    }
    if (lastMs === undefined) break;
    const nextCursorMs = Math.max(lastMs, passedThroughMs);
    if (nextCursorMs <= cursorMs) break;
    cursorMs = nextCursorMs;
  }
  if (found.fires.length < count) found.stop = bound.stop;
  return found;
}

/**
 * Where to continue after an instant the window skips, once LISTED_PER_CLOSED_PERIOD instants in
 * a row were: every instant before the opening is outside too. With `skip` they are all skipped,
 * so just before the opening; with `defer` the last of them runs at the opening, so just before
 * that last instant (found by looking back from the opening in growing steps). No jump (the
 * instant itself) before that many, or when the window never opens.
 */
function windowSkipJumpMs(
  spec: TimingSpec,
  window: CompiledWindow | null,
  fire: JobFire,
  inARow: number,
): number {
  if (inARow < LISTED_PER_CLOSED_PERIOD || window === null) return fire.scheduledAtMs;
  const openingMs = nextWindowOpeningMs(window, fire.scheduledAtMs);
  if (openingMs === null || openingMs <= fire.scheduledAtMs) return fire.scheduledAtMs;
  if (spec.window?.outside === "skip") return openingMs - 1;
  const schedules = schedulesOf(spec);
  for (let spanMs = 1_000; openingMs - spanMs > fire.scheduledAtMs; spanMs *= 8) {
    const [nextMs] = unionFireTimes(schedules, openingMs - spanMs, 1);
    if (nextMs !== undefined && nextMs < openingMs) return openingMs - spanMs;
  }
  return fire.scheduledAtMs;
}

/** The fires of searchRunFires alone: what `next_fire_times` and the console list. */
export function upcomingRunFires(
  spec: TimingSpec,
  jobId: string,
  afterMs: number,
  count: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire[] {
  return searchRunFires(spec, jobId, afterMs, count, exclusions).fires;
}
