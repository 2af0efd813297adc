// The flood scenario's targets, checked on its result (./flood.mjs): the victim's p95 lateness
// during the flood and while another tenant's calls hang at most max(2 s, 3 × alone) with no
// instant missed; every one of the flooder's jobs deleted within 10 s with 8 DELETEs in flight;
// no call starting more than 1 s after a delete, a bulk delete or a suspend answered; /healthz
// answered throughout. Each check says its figure, its bound and whether it is met.

const VICTIM_P95_FLOOR_MS = 2_000;
const VICTIM_P95_FACTOR = 3;
const DELETES_DONE_WITHIN_MS = 10_000;

/** One check: the figure, its bound, and whether it holds (null figure: not measured, not met). */
function check(figure, bound, holds) {
  return { figure, bound, met: figure !== null && figure !== undefined && holds };
}

export function floodTargets(result) {
  const alone = result.victim_lateness_quiet_ms?.p95 ?? null;
  const p95BoundMs =
    alone === null ? VICTIM_P95_FLOOR_MS : Math.max(VICTIM_P95_FLOOR_MS, VICTIM_P95_FACTOR * alone);
  const flood = result.victim_lateness_flood_ms?.p95 ?? null;
  const hang = result.victim_lateness_hang_ms?.p95 ?? null;
  const actions = result.control_actions ?? {};
  const checks = {
    victim_p95_during_flood_ms: check(flood, p95BoundMs, flood <= p95BoundMs),
    victim_missed_during_flood: check(result.victim_missed?.flood, 0, result.victim_missed?.flood === 0),
    ...(result.hanging_calls
      ? {
          victim_p95_while_calls_hang_ms: check(hang, p95BoundMs, hang <= p95BoundMs),
          victim_missed_while_calls_hang: check(
            result.victim_missed_hang,
            0,
            result.victim_missed_hang === 0,
          ),
        }
      : {}),
    deletes_done_ms: check(
      actions.deletes?.done_ms,
      DELETES_DONE_WITHIN_MS,
      actions.deletes?.done_ms <= DELETES_DONE_WITHIN_MS,
    ),
    // By the call's start (its claim), which is what a delete stops; arrivals are in the result.
    jobs_with_a_call_started_over_1s_after_delete: check(
      actions.deletes?.jobs_with_a_call_started_over_1s_after_their_delete,
      0,
      actions.deletes?.jobs_with_a_call_started_over_1s_after_their_delete === 0,
    ),
    calls_over_1s_after_bulk_delete: check(
      actions.bulk_delete?.calls_over_1s_after_answer,
      0,
      actions.bulk_delete?.calls_over_1s_after_answer === 0,
    ),
    calls_over_1s_after_suspend: check(
      actions.suspend?.calls_over_1s_after_answer,
      0,
      actions.suspend?.calls_over_1s_after_answer === 0,
    ),
    healthz_answered_throughout: check(
      result.healthz?.failed,
      0,
      result.healthz?.answered_throughout === true,
    ),
  };
  return { all_met: Object.values(checks).every((entry) => entry.met), ...checks };
}
