import type { DstPolicy } from "../job-spec";
import { SECOND_MS } from "./calendar";
import { DEFAULT_DST_POLICY, fireInstantsForWallTime } from "./dst";
import type { CronSpec } from "./fields";
import { nextMatchingWall } from "./match";
import { offsetChangeNear, resolveWallTime, wallTimeAt, zoneOffsets } from "./zone";

/** Any calendar pattern repeats within 400 Gregorian years: nothing in that span means never. */
const HORIZON_YEARS = 400;
const LAST_YEAR = 9_999;

/**
 * The next `count` instants (epoch ms, ascending, distinct) strictly after `afterMs` at which a
 * parsed cron expression fires in `timezone`, applying the DST rules.
 *
 * Matching wall times are visited in wall order. Around a transition the instants they map to
 * can come out of order (a gap time shifted past later normal times, both passes of a repeated
 * hour), so results are kept sorted and the walk stops only once no later wall time can map to
 * an instant before the last one needed.
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
  if (count <= 0) return [];
  const zone = zoneOffsets(timezone);
  // Stored specs may omit a default; the schema fills both fields but rows can predate that.
  const mode = spec.wildcardHour ? "elapsed" : { ...DEFAULT_DST_POLICY, ...policy };
  // Start early enough to see wall times before `afterMs`'s own that still fire after it.
  let cursorWallMs = wallTimeAt(zone, afterMs) - offsetChangeNear(zone, afterMs);
  const found: number[] = [];
  for (;;) {
    const untilYear = Math.min(LAST_YEAR, new Date(cursorWallMs).getUTCFullYear() + HORIZON_YEARS);
    const wallMs = nextMatchingWall(spec, cursorWallMs, untilYear);
    if (wallMs === null) break;
    const resolution = resolveWallTime(zone, wallMs);
    for (const atMs of fireInstantsForWallTime(resolution, mode)) {
      if (atMs > afterMs) insertSorted(found, atMs);
    }
    // Every later wall time maps to an instant after wallMs - maxOffsetMs.
    const lastNeededMs = found[count - 1];
    if (lastNeededMs !== undefined && lastNeededMs <= wallMs - resolution.maxOffsetMs) break;
    cursorWallMs = wallMs + SECOND_MS;
  }
  return found.slice(0, count);
}

/** Inserts into an ascending array, ignoring duplicates (a shifted gap time may equal a normal one). */
function insertSorted(values: number[], value: number): void {
  let index = values.length;
  while (index > 0 && (values[index - 1] ?? 0) > value) index--;
  if (values[index - 1] !== value) values.splice(index, 0, value);
}
