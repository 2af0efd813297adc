import { IANAZone } from "luxon";
import { parseCronCached } from "./cache";
import { nextMatchingWall } from "./match";
import { fixedOffsetProblem } from "./zone-name";

/** Any month/day pattern recurs within one 400-year Gregorian cycle. */
const CYCLE_START_WALL_MS = Date.UTC(2000, 0, 1);
const CYCLE_LAST_YEAR = 2399;

/**
 * Problems with a cron expression in a zone, as messages a user can act on; empty when valid.
 * An expression whose day and month fields can never coincide is an error, not a silent job.
 *
 * @example cronExpressionIssues("0 9 * * MON-FRI", "Europe/Berlin") // []
 * @example cronExpressionIssues("0 0 30 2 *", "UTC") // ["expression can never fire (e.g. 30 February): ..."]
 * @example cronExpressionIssues("61 * * JAN FOO", "UTC")
 * // ["field minute: 61 is out of range 0-59", 'field day-of-week: unknown day name "FOO"']
 */
export function cronExpressionIssues(expr: string, timezone: string): string[] {
  const issues: string[] = [];
  const offset = fixedOffsetProblem(timezone);
  if (offset !== null) {
    issues.push(offset);
  } else if (!IANAZone.isValidZone(timezone)) {
    issues.push(`unknown time zone "${timezone}": use an IANA name such as Europe/Berlin or UTC`);
  }
  return [...issues, ...cronExprIssues(expr)];
}

/**
 * Problems with the expression alone, whatever its zone: syntax, and day fields that can never
 * coincide. A bad zone never hides them.
 *
 * @example cronExprIssues("61 * * * *") // ["field minute: 61 is out of range 0-59"]
 */
export function cronExprIssues(expr: string): string[] {
  const parsed = parseCronCached(expr);
  if (!parsed.ok) return parsed.issues;
  if (nextMatchingWall(parsed.spec, CYCLE_START_WALL_MS, CYCLE_LAST_YEAR) === null) {
    return [
      "expression can never fire (e.g. 30 February): no date matches its day-of-month, month and day-of-week fields",
    ];
  }
  return [];
}

/**
 * True when the hour field is `*` or `*\/n`: such a job runs on elapsed time (gap wall times do
 * not fire, repeated ones fire twice) and its `dst` option has no effect. False if invalid.
 *
 * @example isWildcardHourCron("*\/5 * * * *") // true
 * @example isWildcardHourCron("0 9 * * *") // false
 */
export function isWildcardHourCron(expr: string): boolean {
  const parsed = parseCronCached(expr);
  return parsed.ok && parsed.spec.wildcardHour;
}
