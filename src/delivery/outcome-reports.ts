// Outcomes go back to their shard as each call finishes, coalesced: a shard's outcomes that finish
// close together share one `reportOutcomes` RPC (set-based at the shard, one serialisation per
// flush), and a call still running never holds anyone else's report. A shard's pending outcomes
// are flushed as soon as none of its calls in the batch is still running, or the last run of a
// message is done (so a burst coalesces at least a message's worth, as when a message reported
// all its outcomes at once), or FLUSH_DELAY_MS after the first of them finished, whichever first.
import type { TargetOutcome } from "../core/runs/outcome";
import { type Claimed, type Reported, reportAtShard } from "./shard-batches";

/**
 * How long a finished outcome may wait for others of its shard. Short against what it delays
 * (only the report: the next fire of an overlap-forbid job, a retry, history), long enough that a
 * burst's message, whose calls share the batch's slots with 7 other messages and so spread over
 * ~100 ms locally, still reports in one or two RPCs rather than one per few runs.
 */
export const FLUSH_DELAY_MS = 100;
/** The most outcomes in one RPC (a dispatch message holds at most 100 runs). */
const MAX_OUTCOMES_PER_REPORT = 100;

interface PendingOutcome {
  run: Claimed;
  outcome: TargetOutcome;
  resolve: (reported: Reported) => void;
  reject: (error: unknown) => void;
}

interface ShardOutcomes {
  /** Calls of this shard claimed in the batch whose outcome is neither pending nor handed off. */
  running: number;
  pending: PendingOutcome[];
  timer: ReturnType<typeof setTimeout> | null;
}

export class OutcomeReporter {
  readonly #shards = new Map<number, ShardOutcomes>();

  /** `beforeReport` runs before each RPC (the test seam: a throw fails that flush's outcomes). */
  constructor(
    private readonly env: Env,
    private readonly beforeReport: () => void,
  ) {}

  /** `count` claimed runs of `shard` are about to be called. */
  expect(shard: number, count: number): void {
    this.#of(shard).running += count;
  }

  /**
   * A run that will report later or never in this batch (handed off, or never called);
   * `lastOfMessage` when the rest of its message is already pending or reported.
   */
  release(shard: number, lastOfMessage = false): void {
    const outcomes = this.#of(shard);
    outcomes.running -= 1;
    this.#flushIfDue(shard, outcomes, lastOfMessage);
  }

  /**
   * Queues one outcome; resolves with the shard's decision once its flush is done (decision null
   * when the report could not be delivered), rejects when the flush failed before the RPC.
   * `counted` is false for a run already released (a handed-off call finishing late);
   * `lastOfMessage` when it is the last of its message's runs to be done.
   */
  report(
    run: Claimed,
    outcome: TargetOutcome,
    { counted = true, lastOfMessage = false }: { counted?: boolean; lastOfMessage?: boolean } = {},
  ): Promise<Reported> {
    const outcomes = this.#of(run.shard);
    if (counted) outcomes.running -= 1;
    return new Promise<Reported>((resolve, reject) => {
      outcomes.pending.push({ run, outcome, resolve, reject });
      this.#flushIfDue(run.shard, outcomes, lastOfMessage);
    });
  }

  #of(shard: number): ShardOutcomes {
    let outcomes = this.#shards.get(shard);
    if (!outcomes) {
      outcomes = { running: 0, pending: [], timer: null };
      this.#shards.set(shard, outcomes);
    }
    return outcomes;
  }

  #flushIfDue(shard: number, outcomes: ShardOutcomes, now = false): void {
    if (outcomes.pending.length === 0) return;
    if (now || outcomes.running <= 0 || outcomes.pending.length >= MAX_OUTCOMES_PER_REPORT) {
      this.#flush(shard, outcomes);
    } else if (outcomes.timer === null) {
      outcomes.timer = setTimeout(() => this.#flush(shard, outcomes), FLUSH_DELAY_MS);
    }
  }

  #flush(shard: number, outcomes: ShardOutcomes): void {
    if (outcomes.timer !== null) clearTimeout(outcomes.timer);
    outcomes.timer = null;
    const batch = outcomes.pending.splice(0, MAX_OUTCOMES_PER_REPORT);
    if (outcomes.pending.length > 0) this.#flushIfDue(shard, outcomes);
    void this.#send(shard, batch);
  }

  async #send(shard: number, batch: PendingOutcome[]): Promise<void> {
    try {
      this.beforeReport();
      const reported = await reportAtShard(
        this.env,
        shard,
        batch.map(({ run, outcome }) => ({ run, outcome })),
      );
      batch.forEach((pending, index) => {
        pending.resolve(reported[index] as Reported);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}
