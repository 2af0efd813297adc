// Handing runs to the dispatch queue: ACQUIRED with a fence and a lease, bundled per message,
// sent, then DISPATCHED (or back to SCHEDULED when the send failed).
import type { DispatchMessage, DispatchRun } from "../../src/shard/protocol";
import type { ShardJobRow } from "./job-store";
import { getRuns, moveRun, moveRunsAtFence, nextFences, type RunRow } from "./run-store";
import { RUNS_PER_MESSAGE, type TickSettings } from "./settings";

/** Queues take ≤ 100 messages and ≤ 256 KB per sendBatch; stay clear of the byte limit. */
const MESSAGES_PER_SEND = 100;
const BYTES_PER_SEND = 192 * 1024;
const SENDS_IN_PARALLEL = 8;
const MAX_LEASE_MS = 10 * 60_000;
/** How soon a failed send is tried again. */
const SEND_RETRY_MS = 1_000;

export async function dispatchRuns(
  sql: SqlStorage,
  settings: TickSettings,
  runs: RunRow[],
  jobs: Map<string, ShardJobRow | null>,
  nowMs: number,
): Promise<{ dispatched: number; failed: number }> {
  const sent: DispatchRun[] = [];
  const newFences = runs.filter((run) => !isResend(run)).length;
  let fenceCursor = newFences > 0 ? nextFences(sql, newFences) : 0;
  for (const run of runs) {
    // collectDueRuns already read every job it let through.
    const job = jobs.get(run.job_id) ?? null;
    // A re-send of the same attempt keeps its fence: the first copy to arrive claims it and the
    // other is refused as a duplicate, so a message that was only slow is not wasted. A new
    // attempt (or the first send) takes a new fence, which fences off every older message.
    const resend = isResend(run);
    const fence = resend ? (run.fence as number) : fenceCursor++;
    // Each re-send waits twice as long: a backlog is not mistaken for loss again and again.
    const leaseMs = Math.min(MAX_LEASE_MS, settings.leaseMs * 2 ** run.dispatch_count);
    moveRun(
      sql,
      run,
      "ACQUIRED",
      resend ? "re-sent after its lease expired" : "acquired for dispatch",
      nowMs,
      {
        fence,
        job_version: job?.version ?? run.job_version,
        due_at_ms: nowMs + leaseMs,
        dispatch_count: run.dispatch_count + 1,
      },
    );
    sent.push({
      run_id: run.run_id,
      job_id: run.job_id,
      tenant: run.tenant_id,
      scheduled_at: run.scheduled_at_ms,
      attempt: run.attempt,
      fence,
      version: run.job_version,
    });
  }
  const sends = sendGroups(bundle(settings.shard, sent, settings.runsPerMessage));
  let dispatched = 0;
  let failed = 0;
  for (let i = 0; i < sends.length; i += SENDS_IN_PARALLEL) {
    const group = sends.slice(i, i + SENDS_IN_PARALLEL);
    const results = await Promise.allSettled(
      group.map((messages) =>
        settings.queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const }))),
      ),
    );
    const afterSendMs = Date.now();
    const runsOf = (index: number) => (group[index] ?? []).flatMap((message) => message.runs);
    // Only runs still ACQUIRED at their fence move: a claim may have raced ahead during the await.
    const delivered = results.flatMap((result, index) =>
      result.status === "fulfilled" ? runsOf(index) : [],
    );
    dispatched += moveRunsAtFence(
      sql,
      delivered.map((run) => ({ runId: run.run_id, fence: run.fence })),
      "ACQUIRED",
      "DISPATCHED",
      "sent to the dispatch queue",
      afterSendMs,
    ).length;
    results.forEach((result, index) => {
      if (result.status === "fulfilled") return;
      const current = getRuns(
        sql,
        runsOf(index).map((run) => run.run_id),
      );
      for (const sentRun of runsOf(index)) {
        const run = current.get(sentRun.run_id);
        if (run?.state !== "ACQUIRED" || run.fence !== sentRun.fence) continue;
        moveRun(sql, run, "SCHEDULED", `queue send failed: ${String(result.reason)}`, afterSendMs, {
          due_at_ms: afterSendMs + SEND_RETRY_MS,
          dispatch_count: run.dispatch_count - 1,
        });
        failed += 1;
      }
    });
  }
  return { dispatched, failed };
}

function isResend(run: RunRow): boolean {
  return run.dispatch_count > 0 && run.fence !== null;
}

/** Runs of one shard as queue messages of at most `perMessage` runs each. */
export function bundle(shard: number, runs: DispatchRun[], perMessage = RUNS_PER_MESSAGE): DispatchMessage[] {
  const messages: DispatchMessage[] = [];
  for (let i = 0; i < runs.length; i += perMessage) {
    messages.push({ shard, runs: runs.slice(i, i + perMessage) });
  }
  return messages;
}

/** Splits messages into sendBatch calls under the per-call message and byte limits. */
export function sendGroups(messages: DispatchMessage[]): DispatchMessage[][] {
  const groups: DispatchMessage[][] = [];
  let current: DispatchMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = JSON.stringify(message).length;
    if (current.length > 0 && (current.length >= MESSAGES_PER_SEND || bytes + size > BYTES_PER_SEND)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
