// Slow calls at any count. A call still running this long after it started is slow: the consumer
// has handed it off (it no longer holds a batch) and tells the run's shard, but the call still
// holds a connection until its target answers or its timeout ends, and the execution path has room for only so many of those (under
// `wrangler dev` each outbound call holds about four sockets). So a tenant with slow calls at a
// shard keeps at most a small, fixed number of runs in flight there: its other due runs wait in
// the shard as its own backlog, where fair share, pauses and deletes apply, and no other tenant's
// run waits behind its hanging target. A tenant whose calls are quick is not affected. Pure.

/**
 * A call running at least this long after it started counts as slow. Measured from the call's
 * start, not its claim: a run claimed with its message may wait for a connection first, and under
 * a burst that wait is the consumer's, not the target's.
 */
export const SLOW_CALL_AFTER_MS = 1_000;

/**
 * Runs in flight per tenant, across every shard, once its calls are slow: divided among the
 * shards (each knows only its own), never under 4 per shard. Far more than the consumer's own
 * concurrency, so a drain whose calls turn slow under load keeps its pace, and four tenants'
 * hanging targets still fit the consumer's room for handed-off calls.
 */
export const SLOW_TENANT_IN_FLIGHT_TOTAL = 512;
const SLOW_TENANT_IN_FLIGHT_MIN_PER_SHARD = 4;

/** A tenant's runs in flight at one shard, at most, while it has slow calls there. */
export function slowTenantInFlightCap(shardCount: number): number {
  return Math.max(
    SLOW_TENANT_IN_FLIGHT_MIN_PER_SHARD,
    Math.floor(SLOW_TENANT_IN_FLIGHT_TOTAL / Math.max(1, shardCount)),
  );
}

/**
 * How many runs a tenant may send now: its fair-share allowance, or, while it has slow calls here,
 * only what keeps its runs in flight within `cap`.
 *
 * @example sendsAllowed({ allowance: 40, inFlight: 14, slowCalls: 3 }, 16) // 2
 * @example sendsAllowed({ allowance: 40, inFlight: 300, slowCalls: 0 }, 16) // 40
 */
export function sendsAllowed(
  tenant: { allowance: number; inFlight: number; slowCalls: number },
  cap: number,
): number {
  if (tenant.slowCalls === 0) return tenant.allowance;
  return Math.max(0, Math.min(tenant.allowance, cap - tenant.inFlight));
}
