import { daysInMonth, toWallFields, toWallMs, type WallFields, weekday } from "./calendar";
import type { CronSpec, DayOfMonthRule, DayOfWeekRule } from "./fields";

/**
 * The first wall time at or after `fromWallMs` (rounded up to a whole second) that the
 * expression matches, or null if none before the end of `untilYear`. Wall times are local
 * date-times encoded as UTC milliseconds (see calendar.ts); no time zone is involved here.
 * Jumps field by field (month, day, hour, minute, second), so a yearly expression costs a few
 * steps, not a scan.
 *
 * @example nextMatchingWall(spec("0 9 * * *"), Date.UTC(2026, 0, 1, 10), 2100) // Date.UTC(2026, 0, 2, 9)
 */
export function nextMatchingWall(spec: CronSpec, fromWallMs: number, untilYear: number): number | null {
  const at: WallFields = toWallFields(Math.ceil(fromWallMs / 1_000) * 1_000);
  while (at.year <= untilYear) {
    if (!advanceMonth(spec, at)) continue;
    if (!advanceDay(spec, at)) continue;
    const hour = spec.hours.next[at.hour] ?? -1;
    if (hour < 0) {
      carry(at, "day");
      continue;
    }
    if (hour !== at.hour) Object.assign(at, { hour, minute: 0, second: 0 });
    const minute = spec.minutes.next[at.minute] ?? -1;
    if (minute < 0) {
      carry(at, "hour");
      continue;
    }
    if (minute !== at.minute) Object.assign(at, { minute, second: 0 });
    const second = spec.seconds.next[at.second] ?? -1;
    if (second < 0) {
      carry(at, "minute");
      continue;
    }
    return toWallMs({ ...at, second });
  }
  return null;
}

/** Moves `at` to the next allowed month (resetting smaller fields); false if it had to roll the year. */
function advanceMonth(spec: CronSpec, at: WallFields): boolean {
  const month = spec.months.next[at.month] ?? -1;
  if (month < 0) {
    Object.assign(at, { year: at.year + 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
    return false;
  }
  if (month !== at.month) Object.assign(at, { month, day: 1, hour: 0, minute: 0, second: 0 });
  return true;
}

/** Moves `at` to the next matching day of its month; false if it had to roll the month. */
function advanceDay(spec: CronSpec, at: WallFields): boolean {
  const day = nextMatchingDay(spec, at.year, at.month, at.day);
  if (day < 0) {
    carry(at, "month");
    return false;
  }
  if (day !== at.day) Object.assign(at, { day, hour: 0, minute: 0, second: 0 });
  return true;
}

/** Increments `field` and resets the smaller ones; overflow is left for the next pass to roll. */
function carry(at: WallFields, field: "month" | "day" | "hour" | "minute"): void {
  if (field === "month") Object.assign(at, { month: at.month + 1, day: 1, hour: 0, minute: 0, second: 0 });
  else if (field === "day") Object.assign(at, { day: at.day + 1, hour: 0, minute: 0, second: 0 });
  else if (field === "hour") Object.assign(at, { hour: at.hour + 1, minute: 0, second: 0 });
  else Object.assign(at, { minute: at.minute + 1, second: 0 });
}

/** The first day >= fromDay of the month that the day fields match, or -1. */
export function nextMatchingDay(spec: CronSpec, year: number, month: number, fromDay: number): number {
  const lastDay = daysInMonth(year, month);
  const firstWeekday = weekday(year, month, 1);
  for (let day = fromDay; day <= lastDay; day++) {
    const dayOfWeek = (firstWeekday + day - 1) % 7;
    const domMatches = matchesDayOfMonth(spec.dayOfMonth, day, lastDay, firstWeekday);
    const dowMatches = matchesDayOfWeek(spec.dayOfWeek, day, dayOfWeek, lastDay);
    if (spec.daysMatchEither ? domMatches || dowMatches : domMatches && dowMatches) return day;
  }
  return -1;
}

function matchesDayOfMonth(
  rule: DayOfMonthRule,
  day: number,
  lastDay: number,
  firstWeekday: number,
): boolean {
  if (rule.days[day]) return true;
  for (const offset of rule.lastOffsets) if (day === lastDay - offset) return true;
  for (const target of rule.nearestWeekdays) {
    if (target <= lastDay && day === nearestWeekday(target, lastDay, firstWeekday)) return true;
  }
  for (const offset of rule.lastOffsetWeekdays) {
    const target = lastDay - offset;
    if (target >= 1 && day === nearestWeekday(target, lastDay, firstWeekday)) return true;
  }
  return false;
}

/** Quartz `W`: the weekday nearest to `day`, never leaving the month (1st on a Saturday -> 3rd). */
function nearestWeekday(day: number, lastDay: number, firstWeekday: number): number {
  const dayOfWeek = (firstWeekday + day - 1) % 7;
  if (dayOfWeek === 6) return day === 1 ? day + 2 : day - 1;
  if (dayOfWeek === 0) return day === lastDay ? day - 2 : day + 1;
  return day;
}

function matchesDayOfWeek(rule: DayOfWeekRule, day: number, dayOfWeek: number, lastDay: number): boolean {
  if (rule.days[dayOfWeek]) return true;
  for (const target of rule.lastOf) if (target === dayOfWeek && day + 7 > lastDay) return true;
  for (const { weekday: target, nth } of rule.nth) {
    if (target === dayOfWeek && Math.ceil(day / 7) === nth) return true;
  }
  return false;
}
