import { CronExpressionParser } from "cron-parser";

/**
 * Problems with a cron expression in a zone, as messages a user can act on; empty when valid.
 * TEMPORARY: replaced by the full engine's validation (src/core/cron/).
 */
export function cronExpressionIssues(expr: string, timezone: string): string[] {
  try {
    CronExpressionParser.parse(expr, { tz: timezone });
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}
