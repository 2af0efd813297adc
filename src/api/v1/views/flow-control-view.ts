// A flow-control key's state as the API and the console show it.
import { formatDuration } from "../../../core/common/duration";
import { iso } from "../../../core/common/stored-values";
import type { GateState, HostThrottleState } from "../../../service/flow-control-keys";

/** A throttled destination host as the API and the console show it. */
export function throttledHostResource(state: HostThrottleState) {
  return {
    origin: state.origin,
    limit: Math.floor(state.limit),
    in_flight: state.inFlight,
    waiting: state.waiting,
    paused_until: state.pausedUntilMs === null ? null : iso(state.pausedUntilMs),
    last_signal: state.lastSignal,
    last_signal_at: iso(state.lastSignalAtMs),
  };
}

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
