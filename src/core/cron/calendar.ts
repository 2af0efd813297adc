/**
 * Proleptic Gregorian calendar arithmetic on "wall milliseconds": a local date-time encoded as if
 * it were UTC (2026-03-08 02:30 local -> Date.UTC(2026, 2, 8, 2, 30)). No time zone here.
 */

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** A wall-clock date-time; `month` is 1-12. */
export interface WallFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `daysInMonth(2024, 2) === 29`. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
}

/** Day of week, 0 = Sunday ... 6 = Saturday. `weekday(2026, 3, 8) === 0`. */
export function weekday(year: number, month: number, day: number): number {
  const days = Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
  return (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

export function toWallMs(fields: WallFields): number {
  const { year, month, day, hour, minute, second } = fields;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  if (year >= 0 && year < 100) return new Date(ms).setUTCFullYear(year);
  return ms;
}

export function toWallFields(wallMs: number): WallFields {
  const date = new Date(wallMs);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}
