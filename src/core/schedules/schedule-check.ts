// The checks of a schedule that need a reference time: can it fire at all from here, and can its
// fire times be found within the search budget. Previews and create/update validation share them.
import { cronSpecOf } from "../cron/cache";
import { CRON_SEARCH_BUDGET, searchCronFireTimes } from "../cron/next";
import { nextFireTimes } from "./schedule";
import type { CronSchedule, Schedule } from "./schedule-spec";

/** One problem of a job body or preview request, `path` dotted from its root ("schedule.expr"). */
export interface SpecIssue {
  path: string;
  message: string;
}

/**
 * Search units left for a whole request (see CRON_SEARCH_BUDGET): a batch of 1,000 jobs shares
 * one, so its CPU is bounded like a single create's times a small factor, not 1,000 times.
 */
export interface SearchAllowance {
  remainingUnits: number;
}

/** What one batch request may spend on its jobs' schedules: ten single searches' worth. */
export const BATCH_SEARCH_UNITS = 10 * CRON_SEARCH_BUDGET;

export type CheckedFireTimes = { ok: true; fireTimesMs: number[] } | { ok: false; issues: SpecIssue[] };

/**
 * The next `count` fire times strictly after `afterMs`, or why a schedule cannot be accepted: a
 * cron whose every matching time is skipped by DST gaps (refused like `0 0 30 2 *`), or whose
 * fire times cost more than the search budget to find. Fewer than `count` is not an error (a
 * one-shot fires once).
 *
 * @example checkedFireTimes({ type: "cron", expr: "0 1 * 3 7L", timezone: "Europe/London",
 *   dst: { gap: "skip", overlap: "first" } }, Date.parse("2026-12-01T00:00:00Z"), 5)
 * // { ok: false, issues: [{ path: "schedule.expr", message: "expression can never fire in Europe/London: ..." }] }
 */
export function checkedFireTimes(
  schedule: Schedule,
  afterMs: number,
  count: number,
  allowance?: SearchAllowance,
): CheckedFireTimes {
  if (schedule.type !== "cron") return { ok: true, fireTimesMs: nextFireTimes(schedule, afterMs, count) };
  return checkedCronFireTimes(schedule, afterMs, count, allowance);
}

function checkedCronFireTimes(
  schedule: CronSchedule,
  afterMs: number,
  count: number,
  allowance: SearchAllowance | undefined,
): CheckedFireTimes {
  const spec = cronSpecOf(schedule.expr);
  const budget = Math.min(CRON_SEARCH_BUDGET, allowance?.remainingUnits ?? CRON_SEARCH_BUDGET);
  const search = searchCronFireTimes(spec, schedule.timezone, schedule.dst, afterMs, count, budget);
  if (allowance) allowance.remainingUnits = Math.max(0, allowance.remainingUnits - search.cost);
  if (search.budgetExhausted && budget < CRON_SEARCH_BUDGET) {
    return issue(
      "could not be checked: earlier jobs of this request spent its search budget on costly schedules; send this job in another request",
    );
  }
  if (search.budgetExhausted) {
    const wanted = count === 1 ? "its next fire time" : `${count} fire times`;
    return issue(
      `is too costly to evaluate: finding ${wanted} examined ${search.candidates} matching times without enough of them firing (daylight-saving gaps skip them); match fewer times${count > 1 ? " or ask for fewer" : ""}`,
    );
  }
  if (search.fireTimesMs.length === 0 && search.dropped > 0) {
    const why = spec.wildcardHour
      ? "its hour field is * or */n, which runs on elapsed time, where gap times do not exist"
      : 'dst.gap is "skip" (with "shift" they fire just after the gap)';
    return issue(
      `expression can never fire in ${schedule.timezone}: every time it matches falls in a daylight-saving gap and ${why}`,
    );
  }
  return { ok: true, fireTimesMs: search.fireTimesMs };
}

function issue(message: string): CheckedFireTimes {
  return { ok: false, issues: [{ path: "schedule.expr", message }] };
}
