import { IANAZone } from "luxon";
import { DAY_MS, MINUTE_MS, SECOND_MS } from "./calendar";

/** UTC offsets of one IANA zone at given instants. */
export interface ZoneOffsets {
  offsetMs(atMs: number): number;
}

/**
 * How a wall time maps to instants in a zone. Offsets are sampled a day either side, which
 * assumes at most one transition within two days (true of every zone in the tz database).
 */
export type WallResolution =
  | { readonly kind: "single"; readonly atMs: number; readonly maxOffsetMs: number }
  /** The wall time does not exist; `shiftedAtMs` is it read with the offset before the gap. */
  | { readonly kind: "gap"; readonly shiftedAtMs: number; readonly maxOffsetMs: number }
  /** The wall time occurs twice. */
  | {
      readonly kind: "overlap";
      readonly firstMs: number;
      readonly secondMs: number;
      readonly maxOffsetMs: number;
    };

const UTC_OFFSETS: ZoneOffsets = { offsetMs: () => 0 };
const UTC_NAMES = new Set(["UTC", "ETC/UTC", "ETC/UCT", "UCT", "ETC/GMT", "GMT", "ETC/ZULU", "ZULU"]);
const zoneCache = new Map<string, ZoneOffsets>();
let offsetLookups = 0;

/**
 * A simulated rule change (tests only: the runtime's tz database cannot be swapped in a test):
 * from `fromMs` on, the zone's offset is `shiftMinutes` more than the tz database says.
 */
export interface ZoneRulePatch {
  readonly zone: string;
  readonly fromMs: number;
  readonly shiftMinutes: number;
}
let rulePatches: readonly ZoneRulePatch[] = [];

/** Replaces the simulated rule changes (an empty list restores the real rules). */
export function setZoneRulePatches(patches: readonly ZoneRulePatch[]): void {
  rulePatches = patches;
  zoneCache.clear();
}

/** The simulated shift of a zone's offset at an instant, in minutes (0 without patches). */
export function patchedShiftMinutes(zone: string, atMs: number): number {
  let shiftMinutes = 0;
  for (const patch of rulePatches) {
    if (patch.zone === zone && atMs >= patch.fromMs) shiftMinutes += patch.shiftMinutes;
  }
  return shiftMinutes;
}

/**
 * How many offsets were asked of the tz database (through luxon) so far in this isolate: the
 * expensive part of a search (~5 us each, against well under 1 us for a cached offset). Searches
 * charge the difference to their budget.
 */
export function zoneOffsetLookups(): number {
  return offsetLookups;
}

/** Offsets for an IANA zone name (cached). Throws on an unknown zone: validate first. */
export function zoneOffsets(timezone: string): ZoneOffsets {
  const cached = zoneCache.get(timezone);
  if (cached) return cached;
  let zone: ZoneOffsets = UTC_OFFSETS;
  const patched = rulePatches.some((patch) => patch.zone === timezone);
  if (!UTC_NAMES.has(timezone.toUpperCase()) || patched) {
    const iana = IANAZone.create(timezone);
    if (!iana.isValid) throw new Error(`unknown time zone ${JSON.stringify(timezone)}`);
    zone = memoizedOffsets((atMs) => {
      offsetLookups += 1;
      return Math.round((iana.offset(atMs) + patchedShiftMinutes(timezone, atMs)) * MINUTE_MS);
    });
  }
  if (zoneCache.size > 1_000) zoneCache.clear();
  zoneCache.set(timezone, zone);
  return zone;
}

/** What one day-long bucket of time holds: one offset, or one transition between two. */
interface Bucket {
  readonly offsetBeforeMs: number;
  readonly offsetAfterMs: number;
  /** First instant (whole second) with `offsetAfterMs`; Infinity when the offset is constant. */
  readonly transitionAtMs: number;
}

const MAX_BUCKETS_PER_ZONE = 4_096;

/**
 * Offsets through a cache of day-long buckets: asking Intl (through luxon) costs ~20 us a call and
 * the alarm tick asks several times per fire. A bucket whose ends share an offset is constant
 * (the tz database never changes twice within a day); otherwise its transition is found once by
 * bisection to the second.
 */
function memoizedOffsets(offsetAt: (atMs: number) => number): ZoneOffsets {
  const buckets = new Map<number, Bucket>();
  const load = (index: number): Bucket => {
    const startMs = index * DAY_MS;
    const endMs = startMs + DAY_MS - SECOND_MS;
    const bucket = bucketBetween(offsetAt, startMs, endMs);
    if (buckets.size >= MAX_BUCKETS_PER_ZONE) buckets.clear();
    buckets.set(index, bucket);
    return bucket;
  };
  return {
    offsetMs(atMs) {
      const bucket = buckets.get(Math.floor(atMs / DAY_MS)) ?? load(Math.floor(atMs / DAY_MS));
      return atMs < bucket.transitionAtMs ? bucket.offsetBeforeMs : bucket.offsetAfterMs;
    },
  };
}

function bucketBetween(offsetAt: (atMs: number) => number, startMs: number, endMs: number): Bucket {
  const offsetBeforeMs = offsetAt(startMs);
  const offsetAfterMs = offsetAt(endMs);
  if (offsetBeforeMs === offsetAfterMs) {
    return { offsetBeforeMs, offsetAfterMs, transitionAtMs: Number.POSITIVE_INFINITY };
  }
  let lowMs = startMs; // still offsetBeforeMs here
  let highMs = endMs; // already offsetAfterMs here
  while (highMs - lowMs > SECOND_MS) {
    const midMs = lowMs + Math.floor((highMs - lowMs) / 2 / SECOND_MS) * SECOND_MS;
    if (offsetAt(midMs) === offsetBeforeMs) lowMs = midMs;
    else highMs = midMs;
  }
  return { offsetBeforeMs, offsetAfterMs, transitionAtMs: highMs };
}

/** The local wall time (see calendar.ts) of an instant. */
export function wallTimeAt(zone: ZoneOffsets, atMs: number): number {
  return atMs + zone.offsetMs(atMs);
}

/** The largest change of offset within a day either side of an instant (0 away from transitions). */
export function offsetChangeNear(zone: ZoneOffsets, atMs: number): number {
  return Math.abs(zone.offsetMs(atMs + DAY_MS) - zone.offsetMs(atMs - DAY_MS));
}

/**
 * Resolves a wall time to the instants at which it occurs.
 *
 * @example resolveWallTime(zoneOffsets("America/New_York"), Date.UTC(2026, 2, 8, 2, 30))
 * // { kind: "gap", shiftedAtMs: Date.parse("2026-03-08T07:30:00Z"), ... } (02:30 EST = 03:30 EDT)
 */
export function resolveWallTime(zone: ZoneOffsets, wallMs: number): WallResolution {
  const offsetBeforeMs = zone.offsetMs(wallMs - DAY_MS);
  const offsetAfterMs = zone.offsetMs(wallMs + DAY_MS);
  const maxOffsetMs = Math.max(offsetBeforeMs, offsetAfterMs);
  if (offsetBeforeMs === offsetAfterMs) return { kind: "single", atMs: wallMs - offsetBeforeMs, maxOffsetMs };
  const beforeMs = wallMs - offsetBeforeMs;
  const afterMs = wallMs - offsetAfterMs;
  const beforeValid = zone.offsetMs(beforeMs) === offsetBeforeMs;
  const afterValid = zone.offsetMs(afterMs) === offsetAfterMs;
  if (beforeValid && afterValid) {
    return {
      kind: "overlap",
      firstMs: Math.min(beforeMs, afterMs),
      secondMs: Math.max(beforeMs, afterMs),
      maxOffsetMs,
    };
  }
  if (beforeValid || afterValid)
    return { kind: "single", atMs: beforeValid ? beforeMs : afterMs, maxOffsetMs };
  return { kind: "gap", shiftedAtMs: beforeMs, maxOffsetMs };
}
