import { SECOND_MS } from "./calendar";
import type { DstPolicy } from "./dst";
import { DEFAULT_DST_POLICY, fireInstantsForWallTime } from "./dst";
import type { CronSpec } from "./fields";
import { nextMatchingWall } from "./match";
import { offsetChangeNear, resolveWallTime, wallTimeAt, zoneOffsetLookups, zoneOffsets } from "./zone";

/**
 * Any calendar pattern repeats within 400 Gregorian years: no instant in that span (after the
 * start or the last instant found) means never, even if wall times keep matching (every one of
 * them in a DST gap that the policy skips).
 */
const HORIZON_YEARS = 400;
const LAST_YEAR = 9_999;

/**
 * The cost one search may spend, in units: 1 per matching wall time examined, plus
 * `LOOKUP_COST` per offset it has to ask the tz database for (cached offsets are free). So any
 * search costs at most ~12,000 lookups (~5 us each) or ~60,000 cheap steps: well under 0.1 s of
 * CPU whatever the expression, as any token may call the preview. A 400-year walk that finds
 * nothing (`0 1 * 3 7L` in Europe/London with `dst.gap: "skip"`: always in the gap) costs ~45,000
 * and ends as "never fires". A schedule that needs more (`* * 1 * 3 0L`, the same with every
 * second of that hour: 3,600 gap times a year) is refused when it is created or previewed.
 */
export const CRON_SEARCH_BUDGET = 60_000;
export const LOOKUP_COST = 5;

/** What one search found, and what it cost. */
export interface CronSearch {
  /** Ascending, distinct; fewer than asked when the schedule ends or the budget ran out. */
  fireTimesMs: number[];
  /** Matching wall times examined. */
  candidates: number;
  /** Units spent (see CRON_SEARCH_BUDGET); the search stops once it reaches the budget. */
  cost: number;
  /** Matching wall times that fired at no instant (DST gaps under skip or elapsed time). */
  dropped: number;
  /** True when the budget ran out before `count` instants were found. */
  budgetExhausted: boolean;
}

/**
 * The next `count` instants (epoch ms, ascending, distinct) strictly after `afterMs` at which a
 * parsed cron expression fires in `timezone`, applying the DST rules; see `searchCronFireTimes`.
 *
 * @example cronFireTimes(spec, "America/New_York", undefined, Date.parse("2026-03-08T05:00:00Z"), 1)
 * // for "30 2 * * *": [Date.parse("2026-03-08T07:30:00Z")] (02:30 does not exist; 03:30 EDT)
 */
export function cronFireTimes(
  spec: CronSpec,
  timezone: string,
  policy: DstPolicy | undefined,
  afterMs: number,
  count: number,
): number[] {
  return searchCronFireTimes(spec, timezone, policy, afterMs, count).fireTimesMs;
}

/**
 * The search behind every cron fire time, bounded by `budget` (see CRON_SEARCH_BUDGET) and by
 * the 400-year horizon.
 *
 * Matching wall times are visited in wall order. Around a transition the instants they map to
 * can come out of order (a gap time shifted past later normal times, both passes of a repeated
 * hour), so results are kept sorted and the walk stops only once no later wall time can map to
 * an instant before the last one needed.
 *
 * @example searchCronFireTimes(spec("0 1 * 3 7L"), "Europe/London", { gap: "skip", overlap: "first" }, t, 1)
 * // { fireTimesMs: [], candidates: 400, dropped: 400, budgetExhausted: false, ... }: 01:00 on the
 * // last Sunday of March is always in London's gap
 */
export function searchCronFireTimes(
  spec: CronSpec,
  timezone: string,
  policy: DstPolicy | undefined,
  afterMs: number,
  count: number,
  budget = CRON_SEARCH_BUDGET,
): CronSearch {
  const search: CronSearch = {
    fireTimesMs: [],
    candidates: 0,
    cost: 0,
    dropped: 0,
    budgetExhausted: false,
  };
  if (count <= 0) return search;
  const zone = zoneOffsets(timezone);
  // Stored specs may omit a default; the schema fills both fields but rows can predate that.
  const mode = spec.wildcardHour ? "elapsed" : { ...DEFAULT_DST_POLICY, ...policy };
  // Start early enough to see wall times before `afterMs`'s own that still fire after it.
  let cursorWallMs = wallTimeAt(zone, afterMs) - offsetChangeNear(zone, afterMs);
  let horizonYear = yearOf(cursorWallMs) + HORIZON_YEARS;
  const found = search.fireTimesMs;
  const lookupsAtStart = zoneOffsetLookups();
  for (;;) {
    if (search.cost >= budget) {
      search.budgetExhausted = found.length < count;
      break;
    }
    const wallMs = nextMatchingWall(spec, cursorWallMs, Math.min(LAST_YEAR, horizonYear));
    if (wallMs === null) break;
    search.candidates += 1;
    const resolution = resolveWallTime(zone, wallMs);
    search.cost = search.candidates + LOOKUP_COST * (zoneOffsetLookups() - lookupsAtStart);
    const instants = fireInstantsForWallTime(resolution, mode);
    if (instants.length === 0) search.dropped += 1;
    else horizonYear = yearOf(wallMs) + HORIZON_YEARS;
    for (const atMs of instants) {
      if (atMs > afterMs) insertSorted(found, atMs);
    }
    // Every later wall time maps to an instant after wallMs - maxOffsetMs.
    const lastNeededMs = found[count - 1];
    if (lastNeededMs !== undefined && lastNeededMs <= wallMs - resolution.maxOffsetMs) break;
    cursorWallMs = wallMs + SECOND_MS;
  }
  found.splice(count);
  return search;
}

function yearOf(wallMs: number): number {
  return new Date(wallMs).getUTCFullYear();
}

/** Inserts into an ascending array, ignoring duplicates (a shifted gap time may equal a normal one). */
function insertSorted(values: number[], value: number): void {
  let index = values.length;
  while (index > 0 && (values[index - 1] ?? 0) > value) index--;
  if (values[index - 1] !== value) values.splice(index, 0, value);
}
