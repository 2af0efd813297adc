// Keeps the leases of the runs a batch holds (claimed and not yet reported) alive at their shards
// (src/core/run-leases.ts): every LEASE_RENEW_EVERY_MS one RPC per shard names them all. A
// consumer that dies stops renewing, and its runs go again within seconds of their lease. The
// renewals are never awaited by the batch (nor under its waitUntil): a held run is always in a
// call the batch or a hand-off's waitUntil already waits for, and a renewal that hangs must
// hold no batch, and so no queue, behind it.
import { LEASE_RENEW_EVERY_MS } from "../core/run-leases";
import { logEvent } from "../log";
import { renewLeases } from "../shard/client";

interface HeldRun {
  shard: number;
  runId: string;
  fence: number;
}

export class LeaseRenewals {
  readonly #env: Env;
  readonly #held = new Map<string, HeldRun>();
  #loop: Promise<void> | null = null;

  constructor(env: Env) {
    this.#env = env;
  }

  /** These claimed runs are in the batch's hands until released. */
  hold(runs: readonly HeldRun[]): void {
    for (const run of runs) this.#held.set(run.runId, run);
    this.#loop ??= this.#renewWhileHeld();
  }

  release(runId: string): void {
    this.#held.delete(runId);
  }

  async #renewWhileHeld(): Promise<void> {
    while (this.#held.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, LEASE_RENEW_EVERY_MS));
      const byShard = new Map<number, { runId: string; fence: number }[]>();
      for (const { shard, runId, fence } of this.#held.values()) {
        const runs = byShard.get(shard) ?? [];
        runs.push({ runId, fence });
        byShard.set(shard, runs);
      }
      await Promise.all(
        [...byShard].map(([shard, runs]) =>
          renewLeases(this.#env, shard, runs).catch((error: unknown) =>
            // The next renewal tries again; a lease that lapses meanwhile re-runs its run.
            logEvent("run.lease_renewal_failed", { shard, runs: runs.length, error }),
          ),
        ),
      );
    }
    this.#loop = null;
  }
}
