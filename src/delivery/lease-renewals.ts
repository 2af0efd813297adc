// Keeps the leases of the runs a batch holds (claimed and not yet reported) alive at their shards
// (src/core/runs/run-leases.ts): every LEASE_RENEW_EVERY_MS one RPC per shard names them all. A
// consumer that dies stops renewing, and its runs go again within seconds of their lease. The
// renewals are never awaited by the batch (nor under its waitUntil): a held run is always in a
// call the batch or a hand-off's waitUntil already waits for, and a renewal that hangs must
// hold no batch, and so no queue, behind it.
import { LEASE_RENEW_EVERY_MS } from "../core/runs/run-leases";
import { logEvent } from "../log";
import { SHARD_CALL_DEADLINE_MS, withinDeadline } from "../service/call-deadline";
import { renewLeases } from "../shard/client";
import type { LeaseRenewal } from "../shard/protocol";

/** Renews these runs' leases at their shard (the shard client's `renewLeases`). */
export type RenewAtShard = (shard: number, runs: LeaseRenewal[]) => Promise<unknown>;

/** A renewal this late or this slow leaves a run little of its lease (RUNNING_LEASE_MS): logged. */
const SLOW_RENEWAL_MS = 3 * LEASE_RENEW_EVERY_MS;

interface HeldRun {
  shard: number;
  runId: string;
  fence: number;
}

interface Held extends HeldRun {
  callStartedAtMs: number | null;
}

export class LeaseRenewals {
  readonly #renew: RenewAtShard;
  readonly #held = new Map<string, Held>();
  /** Shards whose last renewal has not answered yet: the next one waits for it, no other shard does. */
  readonly #renewing = new Set<number>();
  #loop: Promise<void> | null = null;

  constructor(
    env: Env,
    renew: RenewAtShard = (shard, runs) =>
      withinDeadline(renewLeases(env, shard, runs), `renew at shard ${shard}`, SHARD_CALL_DEADLINE_MS),
  ) {
    this.#renew = renew;
  }

  /** These claimed runs are in the batch's hands until released. */
  hold(runs: readonly HeldRun[]): void {
    for (const { shard, runId, fence } of runs)
      this.#held.set(runId, { shard, runId, fence, callStartedAtMs: null });
    this.#loop ??= this.#renewWhileHeld();
  }

  /** The run's call started (it had waited for a connection until now): its lease is capped from here. */
  calling(runId: string, atMs: number): void {
    const held = this.#held.get(runId);
    if (held !== undefined) held.callStartedAtMs = atMs;
  }

  release(runId: string): void {
    this.#held.delete(runId);
  }

  // The period is kept whatever the answers take: a shard slow to answer (a long pass, a restore)
  // delays only its own renewals. Waiting for every shard before the next round let one busy
  // shard hold the others' leases until they lapsed, and their runs were called a second time.
  async #renewWhileHeld(): Promise<void> {
    while (this.#held.size > 0) {
      const sleptFromMs = Date.now();
      await new Promise((resolve) => setTimeout(resolve, LEASE_RENEW_EVERY_MS));
      // A renewal that comes late (a starved isolate) or answers late (a busy shard) is the
      // evidence when a run is called twice: its lease lapsed while its call was still running.
      const lateMs = Date.now() - sleptFromMs - LEASE_RENEW_EVERY_MS;
      if (lateMs > SLOW_RENEWAL_MS)
        logEvent("run.lease_renewal_late", { late_ms: lateMs, runs: this.#held.size });
      for (const [shard, runs] of this.#heldByShard()) {
        if (this.#renewing.has(shard)) continue;
        this.#renewing.add(shard);
        const sentAtMs = Date.now();
        void this.#renew(shard, runs)
          .then(() => {
            const tookMs = Date.now() - sentAtMs;
            if (tookMs > SLOW_RENEWAL_MS)
              logEvent("run.lease_renewal_slow", { shard, runs: runs.length, took_ms: tookMs });
          })
          .catch((error: unknown) =>
            // The next renewal tries again; a lease that lapses meanwhile re-runs its run.
            logEvent("run.lease_renewal_failed", { shard, runs: runs.length, error }),
          )
          .finally(() => this.#renewing.delete(shard));
      }
    }
    this.#loop = null;
  }

  #heldByShard(): Map<number, LeaseRenewal[]> {
    const byShard = new Map<number, LeaseRenewal[]>();
    for (const { shard, runId, fence, callStartedAtMs } of this.#held.values()) {
      const runs = byShard.get(shard) ?? [];
      runs.push({ runId, fence, callStartedAtMs });
      byShard.set(shard, runs);
    }
    return byShard;
  }
}
