// How long the shard waits on a run handed to the execution path before presuming it lost.

/** Extra time past a run's timeout before its lease expires and the attempt counts as failed. */
export const RUNNING_LEASE_GRACE_MS = 15_000;
