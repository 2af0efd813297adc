// How long a shard waits on a run it handed out before presuming the run lost. Pure.
//
// A claimed run's lease is short and the consumer that holds it renews it while the run is in its
// hands (waiting for a connection, calling, reporting): a consumer that dies stops renewing, and
// the run is called again within seconds, not after its timeout. Renewals live in the shard's
// memory only (no write per renewal); the lease written at the claim stays short, so a shard that
// restarts finds it lapsed and gives every run in flight a fresh, short lease from its restart:
// renewed by a consumer still holding the run, or lapsed within seconds when the whole service
// went down with it.

/** A claimed run's lease: renewed by its consumer every LEASE_RENEW_EVERY_MS while it holds it. */
export const RUNNING_LEASE_MS = 10_000;
/** How often a consumer renews the leases of the runs it holds: a few renewals fit in a lease. */
export const LEASE_RENEW_EVERY_MS = 1_000;
/** A run's outcome is due at most this long past its timeout, however often it was renewed. */
export const RUNNING_LEASE_GRACE_MS = 15_000;
/**
 * After a shard restarts, each claimed run is presumed lost this long after the restart unless its
 * consumer renews it first: longer than a renewal period, short enough that a run the crash lost
 * is called again within seconds.
 */
export const RESTART_LEASE_MS = 2_500;
/**
 * After a shard restarts, a run sent to the queue is sent again this long after the restart (or
 * its instant): its message may have died with the service. A copy too many costs one refused
 * claim (a re-send keeps its fence), never a second call.
 */
export const RESTART_SEND_LEASE_MS = 1_000;

/** The lease a claim writes: short, and never past the call's timeout and its grace. */
export function claimLeaseUntilMs(nowMs: number, timeoutMs: number): number {
  return nowMs + Math.min(RUNNING_LEASE_MS, timeoutMs + RUNNING_LEASE_GRACE_MS);
}

/**
 * A renewed lease: a full lease from now, capped at the call's start plus its timeout and grace (a
 * consumer never holds a call past its timeout, so renewals beyond it would only hide a bug). A run
 * still waiting for a connection (`callStartedAtMs` null) has no cap yet: under saturation that
 * wait can outlast the timeout, and a lease lapsing then has the run called twice. Never shorter
 * than the lease it renews.
 *
 * @example renewedLeaseUntilMs({ nowMs: 20_000, callStartedAtMs: 0, timeoutMs: 30_000, leaseUntilMs: 25_000 }) // 30_000
 */
export function renewedLeaseUntilMs(lease: {
  nowMs: number;
  callStartedAtMs: number | null;
  timeoutMs: number;
  leaseUntilMs: number;
}): number {
  const fullMs = lease.nowMs + RUNNING_LEASE_MS;
  const capMs =
    lease.callStartedAtMs === null
      ? fullMs
      : lease.callStartedAtMs + lease.timeoutMs + RUNNING_LEASE_GRACE_MS;
  return Math.max(lease.leaseUntilMs, Math.min(fullMs, capMs));
}

/**
 * The lease of a run in flight found by a shard that has just restarted. A claimed run may still be
 * called by a consumer that outlived the shard: it gets RESTART_LEASE_MS from the restart to say so
 * by a renewal (even when the lease written at its claim has lapsed meanwhile). A run sent to the
 * queue keeps its lease, cut to RESTART_SEND_LEASE_MS after the restart or its instant: its message
 * may have died with the service, and a re-send keeps its fence, so whichever copy arrives first is
 * the one called.
 *
 * @example restartLeaseUntilMs({ state: "RUNNING", restartMs: 60_000, fireAtMs: 0, leaseUntilMs: 10_000 }) // 62_500
 */
export function restartLeaseUntilMs(run: {
  state: "RUNNING" | "ACQUIRED" | "DISPATCHED";
  restartMs: number;
  fireAtMs: number;
  leaseUntilMs: number;
}): number {
  if (run.state === "RUNNING") return run.restartMs + RESTART_LEASE_MS;
  return Math.min(run.leaseUntilMs, Math.max(run.restartMs, run.fireAtMs) + RESTART_SEND_LEASE_MS);
}
