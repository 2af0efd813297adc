// QStash's `Upstash-Cron` value: a cron expression, optionally led by `CRON_TZ=Area/City ` (or
// `TZ=`), which QStash reads as the zone the expression is in; without it, UTC. The expression
// and zone are checked by the same code as a /v1 cron schedule (src/core/cron).
import { cronExpressionIssues } from "../cron/validate";

export type QstashCron = { ok: true; expr: string; timezone: string } | { ok: false; issues: string[] };

const ZONE_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)(?:\s+(.*))?$/i;

/**
 * @example parseQstashCron("CRON_TZ=Europe/Berlin 0 9 * * 1-5")
 * // { ok: true, expr: "0 9 * * 1-5", timezone: "Europe/Berlin" }
 * @example parseQstashCron("*\/5 * * * *") // { ok: true, expr: "*\/5 * * * *", timezone: "UTC" }
 */
export function parseQstashCron(value: string): QstashCron {
  const text = value.trim();
  const prefixed = ZONE_PREFIX.exec(text);
  const timezone = prefixed?.[1] ?? "UTC";
  const expr = (prefixed === null ? text : (prefixed[2] ?? "")).trim();
  if (expr === "") return { ok: false, issues: ["must hold a cron expression such as */5 * * * *"] };
  const issues = cronExpressionIssues(expr, timezone);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, expr, timezone };
}
