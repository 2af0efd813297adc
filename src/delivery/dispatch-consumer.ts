// The dispatch queue's consumer. A message is a bundle of runs of one shard: claimed at the shard
// in one RPC (the authoritative dedup), each called through slots shared by the whole batch, and
// each outcome reported as its call finishes (coalesced per shard, ./outcome-reports.ts). A
// message is acked once every run of it is reported or handed off.
//
// A message of runs sent ahead that arrives more than HANDOFF_AFTER_MS before their instant is
// acked at once and held to the instant under ctx.waitUntil, off its batch: held in the batch, it
// stopped the queue behind it until then (see below). Acked early, its runs are still safe: they
// are DISPATCHED at the shard with a lease from their instant, and a consumer that dies holding
// them leaves them to that lease, which re-sends them.
//
// Handing off: a call still running HANDOFF_AFTER_MS after it started gives its slot back and
// stops holding its message and the batch; it goes on under ctx.waitUntil and reports when it
// ends. The shard needs nothing new for it: the batch renews the lease of every run it holds until
// the run is reported (./lease-renewals.ts), so a handed-off call whose isolate dies is retried
// within seconds of its lease, as a consumer that crashed mid-call is. Without the hand-off one target hanging for its
// timeout held the whole batch, and the local queue delivers a queue's next batch only when the
// previous one has ended: every other tenant's runs waited for it (a job due every second was up
// to 29 s late). wrangler.toml sets `queue_consumer_no_wait_for_wait_until` so that a batch ends
// when this handler returns, not when the handed-off calls do.
//
// Under Cloudflare's 6 connections (emulated with EMULATE_CONNECTION_CAP) a handed-off call keeps
// its connection, so hanging calls can leave a batch none: its runs that will not get one soon are
// given back to their shard uncalled, claimed or not (./batch-connections.ts, ./give-backs.ts), and
// wait there as their tenant's backlog instead of holding the batch for the calls' timeout.

import type { TargetOutcome } from "../core/runs/outcome";
import { SLOW_CALL_AFTER_MS } from "../core/runs/slow-calls";
import type { OtlpConfig } from "../core/trace/otlp-config";
import { logEvent } from "../log";
import { CLOUDFLARE_CONNECTIONS, connectionCapOn } from "../queue/connection-cap";
import { runPool } from "../queue/pool";
import {
  type DispatchMessage,
  type DispatchRun,
  runsOfMessage,
  type SingleRunDispatchMessage,
} from "../shard/protocol";
import {
  type BatchConnections,
  cappedConnections,
  noteSlowCall,
  uncappedConnections,
} from "./batch-connections";
import { MessageLog } from "./dispatch-log";
import { afterReport, dropKnownDone, idsOf, pointOf } from "./dispatch-outcomes";
import { GiveBacks } from "./give-backs";
import { handOffRoom, sharingRoom } from "./hand-off-room";
import { HANDED_OFF, HandOffWatch } from "./hand-off-watch";
import { holdUntilDue, holdUntilMs } from "./hold";
import { LeaseRenewals } from "./lease-renewals";
import { recordDispatch } from "./metrics";
import { OutcomeReporter } from "./outcome-reports";
import { type CallSetup, callRun, callSetup } from "./run-calls";
import { type Claimed, claimAtShard, type Reported } from "./shard-batches";
import { SlowCallNotices } from "./slow-call-notices";
import { exportTelemetry, recordAttempt, telemetryOf } from "./telemetry-export";
import { type ConsumerTestSeam, loadConsumerTestSeam } from "./test-seam";

export { doneKey } from "./dispatch-outcomes";

/**
 * Concurrent target calls per batch: enough to hide target latency, few enough to keep sockets
 * sane (under wrangler dev every outbound fetch holds several sockets in its proxy).
 * Measured under wrangler dev, 300 jobs due at one instant: 32 -> p50 2.3 s, 64 -> p50 1.2 s.
 */
const TARGET_CONCURRENCY = 64;
/** Messages worked at once: enough that a claim or a report never leaves the call limit idle. */
const MESSAGES_IN_FLIGHT = 8;
/**
 * A call still running this long after it started is handed off. It bounds how long one slow
 * target holds its batch (and so every run queued behind the batch); a call handed off loses
 * nothing, it only reports later. Measured under wrangler dev (test/e2e/slow-endpoints.e2e.ts,
 * another tenant's every-second job beside 3 targets hanging 15 s): lateness 23-141 ms before the
 * hang; during it 76-468 ms at 250 ms, 46-174 and 70-258 ms (two runs) at 100 ms.
 */
export const HANDOFF_AFTER_MS = 100;
/**
 * Messages held off their batch until their runs' instant, at most, per isolate. A message sent
 * ahead arrives before its instant (by design, or by a whole-second delivery delay rounded down)
 * and held its batch until then; the local queue starts a queue's next batch only when the
 * previous one has ended, so each such message stopped the queue for up to its hold (seconds,
 * for a tenant whose runs go ahead during another's flood). Past this many, a message holds its
 * batch as before.
 */
const MAX_HELD_MESSAGES = 1_024;
let heldMessages = 0;

type AnyDispatchMessage = DispatchMessage | SingleRunDispatchMessage;

interface BatchContext {
  env: Env;
  ctx: ExecutionContext;
  testSeam: ConsumerTestSeam;
  /** Where calls get their connection (under the emulated cap a hand-off keeps it). */
  connections: BatchConnections;
  /** Runs that will get no connection in this batch, on their way back to their shard. */
  giveBacks: GiveBacks;
  reporter: OutcomeReporter;
  handOffs: HandOffWatch;
  slowCalls: SlowCallNotices;
  /** The leases of the runs this batch claimed and has not reported yet, renewed at their shards. */
  leases: LeaseRenewals;
  calls: number;
  /** Null when no OTLP endpoint is set: no span is built. */
  telemetry: OtlpConfig | null;
}

/** A message's runs not yet reported, pending or handed off: the last one flushes its shard. */
interface MessageProgress {
  deliveries: number;
  undone: number;
  log: MessageLog;
  /** When the message's claim at the shard started and ended (the runs' `claimed` spans). */
  claimStartMs: number;
  claimEndMs: number;
}

export async function handleDispatchBatch(
  batch: MessageBatch<AnyDispatchMessage>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const testSeam = await loadConsumerTestSeam(env);
  const context: BatchContext = {
    env,
    ctx,
    testSeam,
    connections: sharingRoom(
      connectionCapOn(env)
        ? cappedConnections(CLOUDFLARE_CONNECTIONS)
        : uncappedConnections(TARGET_CONCURRENCY),
    ),
    giveBacks: new GiveBacks(env),
    reporter: new OutcomeReporter(env, () => testSeam.beforeReport()),
    handOffs: new HandOffWatch(HANDOFF_AFTER_MS),
    slowCalls: new SlowCallNotices(env),
    leases: new LeaseRenewals(env),
    calls: 0,
    telemetry: telemetryOf(env),
  };
  let messagesDone = 0;
  const slowBatch = setTimeout(
    () => logEvent("dispatch.batch_slow", { messages: batch.messages.length, done: messagesDone }),
    MESSAGE_SLOW_AFTER_MS,
  );
  const results = await runPool(batch.messages, MESSAGES_IN_FLIGHT, (message) =>
    handleMessage(message, context).finally(() => {
      messagesDone += 1;
    }),
  ).finally(() => clearTimeout(slowBatch));
  context.testSeam.afterBatch(context.calls);
  results.forEach((result, index) => {
    if (result.status === "fulfilled") return;
    // A bug, not a target failure (callTarget never throws): redeliver; claims refuse duplicates.
    logEvent("dispatch.message_failed", { error: result.reason });
    batch.messages[index]?.retry({ delaySeconds: 1 });
  });
  exportTelemetry(context.telemetry, ctx);
}

/** A message still in its batch after this long is logged with the step it waits in. */
const MESSAGE_SLOW_AFTER_MS = 15_000;

async function handleMessage(message: Message<AnyDispatchMessage>, context: BatchContext): Promise<void> {
  const { shard, runs } = runsOfMessage(message.body);
  const step = { now: "known-done check" };
  const slow = setTimeout(
    () =>
      logEvent("dispatch.message_slow", {
        shard,
        runs: runs.length,
        attempts: message.attempts,
        step: step.now,
      }),
    MESSAGE_SLOW_AFTER_MS,
  );
  try {
    await handleRuns(message, shard, runs, context, step);
  } finally {
    clearTimeout(slow);
  }
}

async function handleRuns(
  message: Message<AnyDispatchMessage>,
  shard: number,
  runs: DispatchRun[],
  context: BatchContext,
  step: { now: string },
): Promise<void> {
  const fresh = message.attempts > 1 ? await dropKnownDone(runs, context.env) : runs;
  if (holdUntilMs(fresh) - Date.now() > HANDOFF_AFTER_MS && heldMessages < MAX_HELD_MESSAGES) {
    // Runs sent ahead and not due yet: the batch, and the queue behind it, does not wait for them.
    heldMessages += 1;
    message.ack();
    const held = serveMessage(shard, fresh, message.attempts, context, null)
      .catch((error: unknown) =>
        logEvent("dispatch.held_message_failed", { shard, runs: fresh.length, error }),
      )
      .finally(() => {
        heldMessages -= 1;
      });
    context.ctx.waitUntil(held);
    return;
  }
  await serveMessage(shard, fresh, message.attempts, context, message, step);
}

/**
 * Holds the runs to their instant, claims them and calls them. `message` is null for a message
 * already acked (held off its batch): a failed claim then leaves its runs to their lease at the
 * shard, which re-sends them, as it does for a consumer that dies holding them.
 */
async function serveMessage(
  shard: number,
  fresh: DispatchRun[],
  deliveries: number,
  context: BatchContext,
  message: Message<AnyDispatchMessage> | null,
  step = { now: "" },
): Promise<void> {
  const { env } = context;
  step.now = "hold until due";
  await holdUntilDue(fresh);
  // A run this batch has no connection for goes back unclaimed: claimed, it would only wait here.
  const served: typeof fresh = [];
  const givenBack: Promise<void>[] = [];
  for (const run of fresh) {
    if (context.connections.mayServe(run.tenant_id)) served.push(run);
    else givenBack.push(context.giveBacks.add(shard, { runId: run.run_id, fence: run.fence }));
  }
  const claimStartMs = Date.now();
  step.now = "claim";
  const claimed = served.length === 0 ? [] : await claimAtShard(env, shard, served);
  const claimEndMs = Date.now();
  step.now = "give back";
  await Promise.all(givenBack);
  if (claimed === null) {
    if (message !== null) message.retry({ delaySeconds: 1 });
    else
      logEvent("dispatch.held_claim_failed", {
        shard,
        runs: served.length,
        note: "their lease re-sends them",
      });
    return;
  }
  if (claimed.length > 0) {
    context.leases.hold(claimed);
    context.reporter.expect(shard, claimed.length);
    step.now = "call setup";
    const setup = await callSetup(claimed, env).catch((error: unknown) => {
      // Nobody will call these claimed runs: their leases must lapse so that they go again.
      for (const run of claimed) context.leases.release(run.runId);
      throw error;
    });
    const log = new MessageLog(shard, claimed);
    log.dispatched();
    const progress: MessageProgress = {
      deliveries,
      undone: claimed.length,
      log,
      claimStartMs,
      claimEndMs,
    };
    step.now = "calls";
    const settled = await Promise.allSettled(claimed.map((run) => settleRun(run, setup, progress, context)));
    log.settled();
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }
  message?.ack();
}

/** Resolves once the run's outcome is reported, once its call is handed off, or once it is given back. */
async function settleRun(run: Claimed, setup: CallSetup, progress: MessageProgress, context: BatchContext) {
  const { reporter, env, ctx } = context;
  const { deliveries } = progress;
  const lastOfMessage = () => --progress.undone === 0;
  const leaseReleased = () => context.leases.release(run.runId);
  const connection = await context.connections.acquire(run.tenantId);
  if (connection === null) {
    reporter.release(run.shard, lastOfMessage());
    await context.giveBacks.add(run.shard, { runId: run.runId, fence: run.fence });
    leaseReleased();
    return;
  }
  const { release } = connection;
  // Counted here, not at the claim: a claimed run given back above is counted when it is called.
  recordDispatch(env.ANALYTICS, pointOf(run));
  let call: Promise<TargetOutcome>;
  const callStartMs = Date.now();
  context.leases.calling(run.runId, callStartMs);
  const traced = (report: Reported) => {
    if (context.telemetry !== null)
      recordAttempt(report, {
        claimStartMs: progress.claimStartMs,
        claimEndMs: progress.claimEndMs,
        callStartMs,
      });
    return report;
  };
  try {
    context.calls += 1;
    context.testSeam.beforeCall(context.calls);
    call = callRun(run, setup, context.env);
  } catch (error) {
    release();
    reporter.release(run.shard, lastOfMessage());
    leaseReleased();
    throw error;
  }
  void call.then(release, release);
  let outcome: TargetOutcome | typeof HANDED_OFF;
  try {
    outcome = await handOffUnlessFull(call, context.handOffs);
  } catch (error) {
    reporter.release(run.shard, lastOfMessage());
    leaseReleased();
    throw error;
  }
  if (outcome === HANDED_OFF) {
    // Under the emulated connection cap a handed-off call keeps its connection until it ends.
    connection.handedOff();
    reporter.release(run.shard, lastOfMessage());
    logEvent("run.handed_off", { ...idsOf(run), attempt: run.attempt, after_ms: HANDOFF_AFTER_MS });
    const late = call
      .then((lateOutcome) => reporter.report(run, lateOutcome, { counted: false }))
      .then((report) => afterReport(traced(report), deliveries, env, ctx))
      .then(() => exportTelemetry(context.telemetry, ctx))
      .catch((error) => logEvent("run.outcome_report_failed", { ...idsOf(run), error }))
      .finally(() => {
        leaseReleased();
        handOffRoom.free();
      });
    const slow = context.slowCalls.watch(run, call, SLOW_CALL_AFTER_MS - HANDOFF_AFTER_MS, () => {
      connection.slow();
      const slowEnded = noteSlowCall(run.tenantId);
      void call.then(slowEnded, slowEnded);
    });
    ctx.waitUntil(Promise.all([late, slow]));
    return;
  }
  const report = await reporter
    .report(run, outcome, { lastOfMessage: lastOfMessage() })
    .finally(leaseReleased);
  afterReport(traced(report), deliveries, env, ctx, progress.log);
}

/** The call's outcome, or HANDED_OFF when it is still running after HANDOFF_AFTER_MS (and room is left). */
function handOffUnlessFull(
  call: Promise<TargetOutcome>,
  handOffs: HandOffWatch,
): Promise<TargetOutcome | typeof HANDED_OFF> {
  if (handOffRoom.left <= 0) return call;
  // The room is taken at the deadline (others may have filled it meanwhile), there and then, so
  // calls handed off in the same check cannot overfill it.
  return handOffs.watch(call, () => handOffRoom.take());
}
