// Handing runs to the dispatch queue: ACQUIRED and DISPATCHED with a fence and a lease, bundled
// per message, committed, then sent (and back to SCHEDULED when the send failed).
import { issueRunToken } from "../../../src/core/runs/run-token";
import type { DispatchMessage, DispatchRun } from "../../../src/shard/protocol";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import { moveRun, moveRunVia } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { RUNS_PER_MESSAGE, type TickSettings } from "./pass-settings";

/** Queues take ≤ 100 messages and ≤ 256 KB per sendBatch; stay clear of the byte limit. */
const MESSAGES_PER_SEND = 100;
const BYTES_PER_SEND = 192 * 1024;
const SENDS_IN_PARALLEL = 8;
const MAX_LEASE_MS = 10 * 60_000;
/** Runs sent ahead share a message only when due within this of each other (see bundleByInstant). */
export const HOLD_SPREAD_MS = 20;
/** How soon a failed send is tried again. */
const SEND_RETRY_MS = 1_000;
/** The DISPATCHED event of a run handed out (it is written as the send starts). */
export const HANDED_OUT_REASON = "sent to the dispatch queue";

/** A run delivered to the queue: when, and its instant (a run sent ahead cannot start before it). */
export interface SentRun {
  runId: string;
  sentAtMs: number;
  fireAtMs: number;
}

export async function dispatchRuns(
  state: ShardState,
  settings: TickSettings,
  runs: Run[],
  jobs: Map<string, JobRecord | null>,
  nowMs: number,
  { queueBusy = false }: { queueBusy?: boolean } = {},
): Promise<{ dispatched: number; failed: number; sent: SentRun[] }> {
  const sent: DispatchRun[] = [];
  // A run listed twice would be handed out once and then fail its second move (DISPATCHED ->
  // ACQUIRED), failing the pass and leaving the run handed out but unsent until its lease lapses.
  const toSend = [...new Set(runs)].filter((run) => run.state === "SCHEDULED");
  const newFences = toSend.filter((run) => !isResend(run)).length;
  let fenceCursor = newFences > 0 ? state.nextFences(newFences) : 0;
  for (const run of toSend) {
    const job = jobs.get(run.job_id) ?? null;
    // A re-send of the same attempt keeps its fence: the first copy to arrive claims it and the
    // other is refused as a duplicate, so a message that was only slow is not wasted. A new
    // attempt (or the first send) takes a new fence, which fences off every older message.
    const resend = isResend(run);
    const fence = resend ? (run.fence as number) : fenceCursor++;
    // Each re-send waits twice as long: a backlog is not mistaken for loss again and again.
    const leaseMs = Math.min(MAX_LEASE_MS, settings.leaseMs * 2 ** run.dispatch_count);
    // A run sent ahead cannot be claimed before its instant: its lease starts there.
    const ahead = run.fire_at_ms > nowMs;
    const version = job?.version ?? run.job_version;
    moveRunVia(
      state,
      run,
      { state: "ACQUIRED", reason: acquireReason(resend, ahead) },
      "DISPATCHED",
      HANDED_OUT_REASON,
      nowMs,
      {
        fence,
        job_version: version,
        due_at_ms: Math.max(nowMs, run.fire_at_ms) + leaseMs,
        dispatch_count: run.dispatch_count + 1,
      },
    );
    sent.push({
      run_id: run.run_id,
      job_id: run.job_id,
      tenant_id: run.tenant_id,
      scheduled_at_ms: run.scheduled_at_ms,
      attempt: run.attempt,
      fence,
      job_version: version,
      fire_at_ms: run.fire_at_ms,
    });
  }
  await mintAheadTokens(settings, sent, nowMs);
  const sends = sendGroups(bundleByInstant(settings.shard, sent, settings.runsPerMessage, nowMs));
  // The hand-out is durable before any message leaves (the output gate holds the sends until it is).
  state.commit();
  let dispatched = 0;
  let failed = 0;
  const delivered: SentRun[] = [];
  for (let i = 0; i < sends.length; i += SENDS_IN_PARALLEL) {
    const group = sends.slice(i, i + SENDS_IN_PARALLEL);
    const results = await Promise.allSettled(
      group.map((messages) =>
        settings.queue.sendBatch(messages.map((body) => sendRequest(body, Date.now(), queueBusy))),
      ),
    );
    const afterSendMs = Date.now();
    const runsOf = (index: number) => (group[index] ?? []).flatMap((message) => message.runs);
    for (const [index, result] of results.entries()) {
      if (result.status === "fulfilled") {
        for (const run of runsOf(index)) {
          delivered.push({ runId: run.run_id, sentAtMs: afterSendMs, fireAtMs: run.fire_at_ms ?? 0 });
          dispatched += 1;
        }
        continue;
      }
      // Only runs still DISPATCHED at their fence go back: a claim may have raced ahead during the await.
      for (const sentRun of runsOf(index)) {
        const run = state.runs.get(sentRun.run_id);
        if (run?.state !== "DISPATCHED" || run.fence !== sentRun.fence) continue;
        moveRun(state, run, "SCHEDULED", `queue send failed: ${String(result.reason)}`, afterSendMs, {
          due_at_ms: afterSendMs + SEND_RETRY_MS,
          dispatch_count: run.dispatch_count - 1,
        });
        failed += 1;
      }
    }
  }
  return { dispatched, failed, sent: delivered };
}

/**
 * Runs sent ahead carry their attempt's run token: minted now, before the instant, it is work the
 * instant no longer waits for. A run due now is left to the consumer (it would only move the work
 * from the consumer to this shard). A failure leaves the token to the consumer too.
 */
async function mintAheadTokens(settings: TickSettings, sent: DispatchRun[], nowMs: number): Promise<void> {
  const ahead = sent.filter((run) => (run.fire_at_ms ?? 0) > nowMs);
  if (ahead.length === 0 || settings.runTokenSecret === undefined) return;
  try {
    const secret = await settings.runTokenSecret();
    const tokens = await Promise.all(
      ahead.map((run) =>
        issueRunToken(secret, run.run_id, { shard: settings.shard, attempt: run.attempt, fence: run.fence }),
      ),
    );
    ahead.forEach((run, index) => {
      run.run_token = tokens[index];
    });
  } catch {
    // The consumer mints what is missing.
  }
}

function acquireReason(resend: boolean, ahead: boolean): string {
  if (resend) return "re-sent after its lease expired";
  return ahead ? "acquired for dispatch ahead of its instant" : "acquired for dispatch";
}

/**
 * A message as a send, delayed to about its runs' instant: whole seconds rounded down, less one,
 * so it arrives before the instant (the consumer holds it the rest of the way, src/delivery/hold.ts)
 * and a consumer invocation does not sit idle through a long wait.
 */
/**
 * A message of runs sent ahead is delivered a second or two before its first instant, unless the
 * queue is busy (the window is full, so what is in it waits up to a second or more before a
 * consumer takes it): then at once, and the consumer holds it until the instant.
 */
function sendRequest(
  body: DispatchMessage,
  nowMs: number,
  queueBusy: boolean,
): MessageSendRequest<DispatchMessage> {
  if (queueBusy) return { body, contentType: "json" };
  const firstFireMs = Math.min(...body.runs.map((run) => run.fire_at_ms ?? 0));
  const delaySeconds = Math.floor((firstFireMs - nowMs) / 1000) - 1;
  return delaySeconds > 0 ? { body, contentType: "json", delaySeconds } : { body, contentType: "json" };
}

function isResend(run: Run): boolean {
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

/**
 * Messages a consumer can hold to one instant: runs due now bundle as before; runs sent ahead are
 * ordered by instant and a message holds only runs due within HOLD_SPREAD_MS of its first (the
 * consumer waits for its last), so none is called more than that after its instant for bundling.
 */
export function bundleByInstant(
  shard: number,
  runs: DispatchRun[],
  perMessage: number,
  nowMs: number,
): DispatchMessage[] {
  const dueNow = runs.filter((run) => (run.fire_at_ms ?? 0) <= nowMs);
  const ahead = runs
    .filter((run) => (run.fire_at_ms ?? 0) > nowMs)
    .sort((a, b) => (a.fire_at_ms ?? 0) - (b.fire_at_ms ?? 0));
  const messages = bundle(shard, dueNow, perMessage);
  let current: DispatchRun[] = [];
  for (const run of ahead) {
    const first = current[0];
    if (
      first &&
      (current.length >= perMessage || (run.fire_at_ms ?? 0) - (first.fire_at_ms ?? 0) > HOLD_SPREAD_MS)
    ) {
      messages.push({ shard, runs: current });
      current = [];
    }
    current.push(run);
  }
  if (current.length > 0) messages.push({ shard, runs: current });
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
