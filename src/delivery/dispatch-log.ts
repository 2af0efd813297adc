// The dispatch consumer's log lines for the common case, one per message instead of one per run:
// at 50 runs a message, a line per dispatch and per success was a tenth of a burst's CPU. The
// per-run detail (each run's dispatch, lateness, outcome) is in the run's history; failures,
// retries, dead letters and hand-offs are still logged one run at a time (dispatch-outcomes.ts).

import { logEvent } from "../log";
import type { Claimed } from "./shard-batches";

export class MessageLog {
  private succeeded: string[] = [];
  private maxDurationMs = 0;

  constructor(
    private readonly shard: number,
    private readonly claimed: readonly Claimed[],
  ) {}

  /** The message's runs were claimed and are about to be called. */
  dispatched(): void {
    let maxLatenessMs = 0;
    for (const run of this.claimed) maxLatenessMs = Math.max(maxLatenessMs, run.latenessMs);
    logEvent("runs.dispatched", {
      shard: this.shard,
      count: this.claimed.length,
      tenant_ids: [...new Set(this.claimed.map((run) => run.tenantId))],
      run_ids: this.claimed.map((run) => run.runId),
      max_lateness_ms: maxLatenessMs,
    });
  }

  /** One of its runs succeeded (its outcome is reported). */
  succeededRun(runId: string, durationMs: number): void {
    this.succeeded.push(runId);
    this.maxDurationMs = Math.max(this.maxDurationMs, durationMs);
  }

  /** Every run not handed off is reported: one line for the successes. */
  settled(): void {
    if (this.succeeded.length === 0) return;
    logEvent("runs.succeeded", {
      shard: this.shard,
      count: this.succeeded.length,
      run_ids: this.succeeded,
      max_duration_ms: this.maxDurationMs,
    });
  }
}
