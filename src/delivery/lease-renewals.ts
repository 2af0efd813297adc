// Keeps the leases of the runs a batch holds (claimed and not yet reported) alive at their shards
// (src/core/run-leases.ts): every LEASE_RENEW_EVERY_MS one RPC per shard names them all. A
// consumer that dies stops renewing, and its runs go again within seconds of their lease. The
// renewals are never awaited by the batch (nor under its waitUntil): a held run is always in a
// call the batch or a hand-off's waitUntil already waits for, and a renewal that hangs must
// hold no batch, and so no queue, behind it.
import { LEASE_RENEW_EVERY_MS } from "../core/run-leases";
import { logEvent } from "../log";
import { renewLeases } from "../shard/client";

/** Renews these runs' leases at their shard (the shard client's `renewLeases`). */
export type RenewAtShard = (shard: number, runs: { runId: string; fence: number }[]) => Promise<unknown>;

interface HeldRun {
  shard: number;
  runId: string;
  fence: number;
}

export class LeaseRenewals {
  readonly #renew: RenewAtShard;
  readonly #held = new Map<string, HeldRun>();
  /** Shards whose last renewal has not answered yet: the next one waits for it, no other shard does. */
  readonly #renewing = new Set<number>();
  #loop: Promise<void> | null = null;

  constructor(env: Env, renew: RenewAtShard = (shard, runs) => renewLeases(env, shard, runs)) {
    this.#renew = renew;
  }

  /** These claimed runs are in the batch's hands until released. */
  hold(runs: readonly HeldRun[]): void {
    for (const run of runs) this.#held.set(run.runId, run);
    this.#loop ??= this.#renewWhileHeld();
  }

  release(runId: string): void {
    this.#held.delete(runId);
  }

  // The period is kept whatever the answers take: a shard slow to answer (a long pass, a restore)
  // delays only its own renewals. Waiting for every shard before the next round let one busy
  // shard hold the others' leases until they lapsed, and their runs were called a second time.
  async #renewWhileHeld(): Promise<void> {
    while (this.#held.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, LEASE_RENEW_EVERY_MS));
      for (const [shard, runs] of this.#heldByShard()) {
        if (this.#renewing.has(shard)) continue;
        this.#renewing.add(shard);
        void this.#renew(shard, runs)
          .catch((error: unknown) =>
            // The next renewal tries again; a lease that lapses meanwhile re-runs its run.
            logEvent("run.lease_renewal_failed", { shard, runs: runs.length, error }),
          )
          .finally(() => this.#renewing.delete(shard));
      }
    }
    this.#loop = null;
  }

  #heldByShard(): Map<number, { runId: string; fence: number }[]> {
    const byShard = new Map<number, { runId: string; fence: number }[]>();
    for (const { shard, runId, fence } of this.#held.values()) {
      const runs = byShard.get(shard) ?? [];
      runs.push({ runId, fence });
      byShard.set(shard, runs);
    }
    return byShard;
  }
}
