// A flow-control key's state as the API and the console show it.
import { formatDuration } from "../../../core/duration";
import type { GateState } from "../../../gate/client";

export function flowControlResource(key: string, state: GateState) {
  return {
    key,
    waiting: state.waiting,
    in_flight: state.inFlight,
    rate_count: state.rateCount,
    rate_period_start: new Date(state.ratePeriodStartMs).toISOString(),
    limits:
      state.limits === null
        ? null
        : {
            rate: state.limits.rate,
            period: formatDuration(state.limits.periodMs),
            parallelism: state.limits.parallelism,
          },
    updated_at: state.updatedAtMs === null ? null : new Date(state.updatedAtMs).toISOString(),
  };
}
