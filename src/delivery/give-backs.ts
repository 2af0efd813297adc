// Runs a consumer batch gives back to their shard uncalled (./batch-connections.ts): those turned
// away together (a batch whose last connection was just kept by a hand-off turns away every waiting
// run at once) share one RPC per shard. A give-back that fails is logged and left to the runs'
// leases, which bring them back as for a consumer that crashed.
import { logEvent } from "../log";
import { SHARD_CALL_DEADLINE_MS, withinDeadline } from "../service/call-deadline";
import { giveBackRuns } from "../shard/client";

interface RunAtFence {
  runId: string;
  fence: number;
}

interface Pending {
  runs: RunAtFence[];
  flushed: Promise<void>;
}

export class GiveBacks {
  readonly #pending = new Map<number, Pending>();

  constructor(private readonly env: Env) {}

  /** Resolves once the run's shard has it back (or the give-back failed and was logged). */
  add(shard: number, run: RunAtFence): Promise<void> {
    const open = this.#pending.get(shard);
    if (open !== undefined) {
      open.runs.push(run);
      return open.flushed;
    }
    const runs = [run];
    // The next macrotask: every run turned away in this one has been added by then.
    const flushed = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() =>
      this.#flush(shard, runs),
    );
    this.#pending.set(shard, { runs, flushed });
    return flushed;
  }

  async #flush(shard: number, runs: RunAtFence[]): Promise<void> {
    this.#pending.delete(shard);
    try {
      const given = await withinDeadline(
        giveBackRuns(this.env, shard, runs),
        `give back at shard ${shard}`,
        SHARD_CALL_DEADLINE_MS,
      );
      logEvent("dispatch.given_back", { shard, runs: runs.length, given });
    } catch (error) {
      logEvent("dispatch.give_back_failed", { shard, runs: runs.length, error });
    }
  }
}
