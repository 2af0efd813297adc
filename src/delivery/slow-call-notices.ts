// Tells each run's shard which handed-off calls are slow (src/core/runs/slow-calls.ts): a call still
// running SLOW_CALL_AFTER_MS after it started. The shard then keeps that tenant's runs in flight to
// a few, so a hanging target fills neither this consumer's room for handed-off calls nor anyone
// else's share. Notices are gathered per shard for a moment and sent in one RPC per shard.
import { logEvent } from "../log";
import { markSlowCalls } from "../shard/client";

/** Notices that come due this close together go in one RPC per shard. */
const NOTICE_BATCH_MS = 50;

interface SlowRun {
  shard: number;
  runId: string;
  fence: number;
}

export class SlowCallNotices {
  readonly #env: Env;
  #pending = new Map<number, SlowRun[]>();
  #flushed: Promise<void> | null = null;

  constructor(env: Env) {
    this.#env = env;
  }

  /**
   * Resolves once the call has ended before `afterMs` from now, or once the notice that it did not
   * has been sent (errors are logged: the notice only eases the load; nothing depends on it).
   * `onSlow` runs when the call turns out slow, before the notice goes.
   */
  watch(run: SlowRun, call: Promise<unknown>, afterMs: number, onSlow: () => void = () => {}): Promise<void> {
    return new Promise<void>((resolve) => {
      let ended = false;
      const timer = setTimeout(() => {
        ended = true;
        onSlow();
        this.#add(run).then(resolve);
      }, afterMs);
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        resolve();
      };
      call.then(end, end);
    });
  }

  #add(run: SlowRun): Promise<void> {
    const runs = this.#pending.get(run.shard) ?? [];
    runs.push(run);
    this.#pending.set(run.shard, runs);
    this.#flushed ??= new Promise<void>((resolve) => setTimeout(resolve, NOTICE_BATCH_MS)).then(() =>
      this.#flush(),
    );
    return this.#flushed;
  }

  async #flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = new Map();
    this.#flushed = null;
    await Promise.all(
      [...pending].map(([shard, runs]) =>
        markSlowCalls(
          this.#env,
          shard,
          runs.map(({ runId, fence }) => ({ runId, fence })),
        ).then(
          (marked) => logEvent("run.slow_calls_noted", { shard, runs: runs.length, marked }),
          (error: unknown) => logEvent("run.slow_calls_unnoted", { shard, runs: runs.length, error }),
        ),
      ),
    );
  }
}
