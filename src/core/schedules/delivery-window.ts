// Delivery windows ("quiet hours"): the local times and weekdays a job may be called at. Whether an
// instant is inside is read off the local clock of the window's zone, so DST needs no rule of its
// own: an opening inside a gap opens when the clock jumps past it (the gap's end), and a repeated
// hour is inside or outside exactly as the clock shows it each time.
import { z } from "zod";
import { DAY_MS, MINUTE_MS, SECOND_MS } from "../cron/calendar";
import { resolveWallTime, wallTimeAt, type ZoneOffsets, zoneOffsets } from "../cron/zone";
import { zoneSchema } from "./exclusions";

const DAY_NAMES = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const;
const DAY_PATTERN = /^(MON|TUE|WED|THU|FRI|SAT|SUN)(?:-(MON|TUE|WED|THU|FRI|SAT|SUN))?$/i;
const CLOCK_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

/** What a job does with an instant outside its window (`defer` is the default). */
export const WINDOW_OUTSIDE_POLICIES = ["defer", "skip"] as const;
/** SKIPPED reason of an instant outside the window of a job with `outside: "skip"` (docs/API.md). */
export const OUTSIDE_WINDOW_REASON = "outside_window";
/** SKIPPED reason of an instant folded into its closed period's one deferred run (docs/API.md). */
export const OUTSIDE_WINDOW_FOLDED_REASON = "outside_window_folded";

const clockSchema = z
  .string()
  .regex(CLOCK_PATTERN, 'must be a local time "HH:MM" from "00:00" to "23:59" (or "24:00" as the end)');

export const deliveryWindowSchema = z.strictObject({
  /** IANA zone of the window; default: the zone of the job's first cron spec, else UTC. */
  timezone: zoneSchema.optional(),
  /** Weekdays the window opens on ("MON", "MON-FRI", "FRI-MON"); default every day. */
  days: z
    .array(z.string().regex(DAY_PATTERN, 'must be a weekday such as "MON" or a range such as "MON-FRI"'))
    .min(1)
    .max(7)
    .optional(),
  /**
   * Local [opening, close): "08:00"-"20:00". A close before the opening spans midnight and
   * belongs to the day it opens on ("22:00"-"06:00" on FRI closes on Saturday morning).
   */
  between: z
    .tuple([clockSchema, clockSchema])
    .refine(([open, close]) => open !== close, { message: "the opening and the close must differ" })
    .refine(([open]) => open !== "24:00", { path: [0], message: 'the opening must be before "24:00"' }),
  outside: z.enum(WINDOW_OUTSIDE_POLICIES).default("defer"),
});

export type DeliveryWindow = z.output<typeof deliveryWindowSchema>;

/** A window ready for many lookups. `days[1..7]` is ISO weekday (Monday 1) -> opens that day. */
export interface CompiledWindow {
  zone: ZoneOffsets;
  days: boolean[];
  openMinute: number;
  closeMinute: number;
  outside: DeliveryWindow["outside"];
}

/** @example compileWindow({ between: ["08:00", "20:00"], outside: "defer" }, "Europe/Berlin") */
export function compileWindow(window: DeliveryWindow, defaultZone: string): CompiledWindow {
  const days = new Array<boolean>(8).fill(window.days === undefined);
  for (const day of window.days ?? []) {
    const [, from = "MON", to] = DAY_PATTERN.exec(day) ?? [];
    const first = DAY_NAMES.indexOf(from.toUpperCase() as (typeof DAY_NAMES)[number]);
    const last = to === undefined ? first : DAY_NAMES.indexOf(to.toUpperCase() as (typeof DAY_NAMES)[number]);
    for (let index = first; ; index = (index + 1) % 7) {
      days[index + 1] = true;
      if (index === last) break;
    }
  }
  return {
    zone: zoneOffsets(window.timezone ?? defaultZone),
    days,
    openMinute: clockMinutes(window.between[0]),
    closeMinute: clockMinutes(window.between[1]),
    outside: window.outside,
  };
}

function clockMinutes(clock: string): number {
  return Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
}

/** ISO weekday (Monday 1 .. Sunday 7) of a local day number (days since 1970-01-01, a Thursday). */
function isoWeekday(dayNumber: number): number {
  return ((((dayNumber + 3) % 7) + 7) % 7) + 1;
}

/**
 * Whether the local clock of the window's zone shows an open time at `atMs`.
 *
 * @example isInsideWindow(compileWindow({ between: ["08:00", "20:00"], outside: "skip" }, "UTC"),
 *   Date.parse("2026-12-01T09:00:00Z")) // true
 */
export function isInsideWindow(window: CompiledWindow, atMs: number): boolean {
  const wallMs = wallTimeAt(window.zone, atMs);
  const dayNumber = Math.floor(wallMs / DAY_MS);
  const minute = (wallMs - dayNumber * DAY_MS) / MINUTE_MS;
  if (window.openMinute < window.closeMinute) {
    return (
      window.days[isoWeekday(dayNumber)] === true &&
      minute >= window.openMinute &&
      minute < window.closeMinute
    );
  }
  return (
    (window.days[isoWeekday(dayNumber)] === true && minute >= window.openMinute) ||
    (window.days[isoWeekday(dayNumber - 1)] === true && minute < window.closeMinute)
  );
}

/**
 * The first instant at or after `atMs` inside the window (`atMs` itself when inside), or null when
 * it never opens (no day). Inside-ness changes only where the clock passes an opening or a close
 * or jumps (a DST change), so those instants of the next 9 days are the only candidates.
 *
 * @example nextWindowOpeningMs(weekdays8to20Berlin, Date.parse("2026-12-05T12:00:00Z")) // Monday 07:00Z
 */
export function nextWindowOpeningMs(window: CompiledWindow, atMs: number): number | null {
  return nextChangeMs(window, atMs, true);
}

/** The first instant after `atMs` outside the window (the close of the open period `atMs` is in). */
export function windowCloseMs(window: CompiledWindow, atMs: number): number | null {
  return nextChangeMs(window, atMs + 1, false);
}

function nextChangeMs(window: CompiledWindow, atMs: number, inside: boolean): number | null {
  if (isInsideWindow(window, atMs) === inside) return atMs;
  const wallDay = Math.floor(wallTimeAt(window.zone, atMs) / DAY_MS);
  const minute = inside ? window.openMinute : window.closeMinute;
  let best: number | null = null;
  const consider = (candidateMs: number) => {
    if (
      candidateMs >= atMs &&
      (best === null || candidateMs < best) &&
      isInsideWindow(window, candidateMs) === inside
    )
      best = candidateMs;
  };
  for (let day = wallDay - 1; day <= wallDay + 9; day++) {
    // Every candidate of this day and later is after day's wall midnight less 14 h (the largest
    // offset) and half a day (the change search): nothing later can beat `best`.
    if (best !== null && best < day * DAY_MS - 1.5 * DAY_MS) break;
    const wallMs = day * DAY_MS + minute * MINUTE_MS;
    const resolved = resolveWallTime(window.zone, wallMs);
    if (resolved.kind === "single") consider(resolved.atMs);
    else if (resolved.kind === "overlap") {
      consider(resolved.firstMs);
      consider(resolved.secondMs);
    } else consider(transitionBefore(window.zone, resolved.shiftedAtMs));
    // A clock that jumps back can reopen (or close) a window at the change itself.
    const dayStartMs = day * DAY_MS - DAY_MS / 2;
    if (window.zone.offsetMs(dayStartMs) !== window.zone.offsetMs(dayStartMs + DAY_MS))
      consider(transitionBefore(window.zone, dayStartMs + DAY_MS));
  }
  return best;
}

/**
 * The offset change in the day before `afterMs` (whose offset is the new one): the first instant,
 * to the second, with the offset `afterMs` has.
 */
function transitionBefore(zone: ZoneOffsets, afterMs: number): number {
  const offsetAfterMs = zone.offsetMs(afterMs);
  let lowMs = afterMs - DAY_MS;
  let highMs = afterMs;
  if (zone.offsetMs(lowMs) === offsetAfterMs) return afterMs;
  while (highMs - lowMs > SECOND_MS) {
    const midMs = lowMs + Math.floor((highMs - lowMs) / 2 / SECOND_MS) * SECOND_MS;
    if (zone.offsetMs(midMs) === offsetAfterMs) highMs = midMs;
    else lowMs = midMs;
  }
  return highMs;
}

/** Where one scheduled instant goes, given the window. */
export type WindowPlacement =
  /** Inside: fires at its own instant; `closeMs` bounds how far a spread may move it. */
  | { kind: "inside"; closeMs: number | null }
  /** Outside, deferred: fires at the next opening. */
  | { kind: "deferred"; openingMs: number; closeMs: number | null }
  /** Outside and not run: recorded SKIPPED with `reason`. */
  | { kind: "skipped"; reason: typeof OUTSIDE_WINDOW_REASON | typeof OUTSIDE_WINDOW_FOLDED_REASON };

/**
 * Decides an instant against the window. With `defer`, a closed period runs at most once: only its
 * last instant is moved to the opening, and only when the schedule has no instant of its own
 * between it and the opening (inclusive); the others are folded (SKIPPED). Knowing the next
 * instant is enough, so every caller (preview, shard, restart) decides the same.
 *
 * @example placeInWindow(weekdays8to20, saturdayNoonMs, mondayNoonMs) // { kind: "deferred", openingMs: Monday 08:00, ... }
 */
export function placeInWindow(
  window: CompiledWindow,
  scheduledAtMs: number,
  nextScheduledAtMs: number | null,
): WindowPlacement {
  if (isInsideWindow(window, scheduledAtMs))
    return { kind: "inside", closeMs: windowCloseMs(window, scheduledAtMs) };
  if (window.outside === "skip") return { kind: "skipped", reason: OUTSIDE_WINDOW_REASON };
  const openingMs = nextWindowOpeningMs(window, scheduledAtMs);
  if (openingMs === null || (nextScheduledAtMs !== null && nextScheduledAtMs <= openingMs))
    return { kind: "skipped", reason: OUTSIDE_WINDOW_FOLDED_REASON };
  return { kind: "deferred", openingMs, closeMs: windowCloseMs(window, openingMs) };
}

/**
 * When an attempt due at `dueAtMs` may start: then, or the window's next opening. Retries never
 * start outside the window, whatever `outside` says (that is for scheduled instants).
 */
export function windowAdmitMs(window: CompiledWindow | null, dueAtMs: number): number {
  if (window === null) return dueAtMs;
  return nextWindowOpeningMs(window, dueAtMs) ?? dueAtMs;
}
