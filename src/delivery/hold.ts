// Holding a dispatch message until its runs' instant. A shard sends runs ahead of their instant
// (durable-objects/shard/dispatch/ahead.ts) with a delivery delay rounded down to whole seconds, so a
// message may arrive before its runs are due: the consumer waits here, then claims. Claiming at the
// instant, not on arrival, is what keeps a pause, edit or delete made meanwhile effective: the
// shard decides at the claim, and it refuses a run whose instant has not come (`not_due`).
// A message held longer than a call may hold its batch waits off the batch (dispatch-consumer.ts).
import type { DispatchRun } from "../shard/protocol";

/** The latest instant among the runs (a message bundles runs due within a few ms of each other). */
export function holdUntilMs(runs: readonly Pick<DispatchRun, "fire_at_ms">[]): number {
  let latestMs = 0;
  for (const run of runs) latestMs = Math.max(latestMs, run.fire_at_ms ?? 0);
  return latestMs;
}

/**
 * Resolves once every run of the message is due. `Date.now()` only advances across I/O in a
 * Worker, so the wait re-checks it after each timer rather than trusting one sleep.
 */
export async function holdUntilDue(runs: readonly Pick<DispatchRun, "fire_at_ms">[]): Promise<void> {
  const untilMs = holdUntilMs(runs);
  for (let waitMs = untilMs - Date.now(); waitMs > 0; waitMs = untilMs - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
