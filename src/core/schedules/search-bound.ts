// The one bound on a search for instants that run, when exclusions (calendars, `exclude`) or a
// delivery window skip some: previews, `next_fire_times`, and create's "can it run at all". A
// schedule's own instants are never bounded here (a cron's search has its own budget): only the
// search for the *next* instant behind skipped ones is, and a caller that lists fewer than asked
// because of it says so (`SearchStop`), never a silent short list.
import { DAY_MS } from "../cron/calendar";

/**
 * Skipped instants (excluded, or outside a delivery window) one search examines at most, in all.
 * With the jumps past an excluded day or a closed window period this is a few milliseconds; it
 * bounds a minutely spec behind a two-week holiday (20,160 instants).
 */
export const SKIPPED_INSTANTS_LIMIT = 25_000;
/**
 * How far past the previous instant that runs (or the search's start) the next one is looked
 * for: a weekly spec behind a weekly exclusion stops after 5 years without one.
 */
export const SEARCH_HORIZON_MS = 5 * 366 * DAY_MS;

/** Why a search stopped before it found the instants it was asked for. */
export type SearchStopReason = "horizon" | "instant_limit";
export const SEARCH_STOP_REASONS = [
  "horizon",
  "instant_limit",
] as const satisfies readonly SearchStopReason[];

export interface SearchStop {
  reason: SearchStopReason;
  /** The search examined the schedule up to here: a later instant may still run. */
  searchedThroughMs: number;
}

/** The state of one bounded search. */
export interface SearchBound {
  skipped: number;
  horizonMs: number;
  stop: SearchStop | null;
}

/** A search that starts after `fromMs`. */
export function startSearch(fromMs: number): SearchBound {
  return { skipped: 0, horizonMs: fromMs + SEARCH_HORIZON_MS, stop: null };
}

/** True (and the search stopped) when `atMs` lies past the horizon. */
export function isPastHorizon(bound: SearchBound, atMs: number): boolean {
  if (atMs <= bound.horizonMs) return false;
  bound.stop = { reason: "horizon", searchedThroughMs: bound.horizonMs };
  return true;
}

/** An instant that runs was found: the next one is looked for up to the horizon past it. */
export function noteRun(bound: SearchBound, atMs: number): void {
  bound.horizonMs = atMs + SEARCH_HORIZON_MS;
}

/** A skipped instant was examined; false (and the search stopped) once the limit is reached. */
export function noteSkip(bound: SearchBound, atMs: number): boolean {
  bound.skipped += 1;
  if (bound.skipped < SKIPPED_INSTANTS_LIMIT) return true;
  bound.stop = { reason: "instant_limit", searchedThroughMs: atMs };
  return false;
}

/**
 * What a stop means, for a person.
 *
 * @example searchStopDetail({ reason: "horizon", searchedThroughMs: Date.parse("2031-12-05T00:00:00Z") })
 * // "no instant that runs within 5 years ... searched through 2031-12-05T00:00:00.000Z; later instants may run"
 */
export function searchStopDetail(stop: SearchStop): string {
  const through = new Date(stop.searchedThroughMs).toISOString();
  const why =
    stop.reason === "horizon"
      ? "no instant left to run (exclusions or the delivery window skip every one) within 5 years of the previous one"
      : `${SKIPPED_INSTANTS_LIMIT} instants skipped by exclusions or the delivery window were examined`;
  return `the search stopped: ${why}; searched through ${through}, later instants may run`;
}

/** A stop as the API answers it (docs/API.md, `stopped`). */
export function searchStopView(stop: SearchStop): {
  reason: SearchStopReason;
  searched_through: string;
  detail: string;
} {
  return {
    reason: stop.reason,
    searched_through: new Date(stop.searchedThroughMs).toISOString(),
    detail: searchStopDetail(stop),
  };
}
