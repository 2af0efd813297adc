// Sizes both dispatch lanes (./lanes.mjs) for the plan's shards at the average, peak and burst,
// decides between them with the numbers (the Queues lane if it holds p99 < 1 s through the
// burst, else the dispatcher pool), and returns what the limits table and the cost table read.
import { costPerMillion } from "./costs.mjs";
import {
  busyShardRuns,
  poolAt,
  poolPerShard,
  queuesFor,
  queuesRunsPerInvocation,
  queuesThrough,
  WINDOW_CAP_PER_SHARD,
  windowNeeded,
} from "./lanes.mjs";

const P99_TARGET_MS = 1_000;

function queuesLane(load, a) {
  const base = { latencyMs: load.targetLatencyMs, budgetMs: a.budgetMs, fixedMs: a.queueFixedMs };
  const runsPerInvocation = queuesRunsPerInvocation(base);
  const p = { ...base, runsPerInvocation, holdS: a.holdS, consumerUtilisation: a.consumerUtilisation };
  const sized = queuesFor(load.burst, p);
  const queues = sized.queues;
  return {
    kind: "queues",
    runs_per_invocation: runsPerInvocation,
    max_batch_size: 1,
    batch_seconds: Math.round(sized.batchS * 100) / 100,
    queues,
    invocations_at_burst: sized.invocations,
    p99_ms: {
      // the average from a quiet hour, the peak from the average, the burst from the average
      average: queuesThrough(load.avg, load.avg, 60, queues, p).p99_ms,
      peak: queuesThrough(load.peak, load.avg, 1, queues, p).p99_ms,
      burst: queuesThrough(load.burst, load.avg, load.burstSeconds, queues, p).p99_ms,
    },
    // the same lane if Cloudflare kept the burst's consumers running from the start (no ramp)
    p99_burst_if_warm_ms: queuesThrough(load.burst, load.burst, load.burstSeconds, queues, p, true).p99_ms,
  };
}

function poolLane(load, shards, a) {
  const p = {
    latencyMs: load.targetLatencyMs,
    budgetMs: a.budgetMs,
    fixedMs: a.poolFixedMs,
    slowShare: a.slowShare,
  };
  const perShard = poolPerShard(load.burst, shards, p);
  const at = (rate) => poolAt(rate * (1 - a.slowShare), shards, perShard, p);
  const scenarios = { average: at(load.avg), peak: at(load.peak), burst: at(load.burst) };
  // Slow targets (time to first byte over the hand-off threshold) go to Queues, one round of 6
  // per message; their lateness is reported apart (they are fewer than 1 % of runs).
  const slow = {
    latencyMs: a.slowLatencyMs,
    budgetMs: a.budgetMs,
    fixedMs: a.queueFixedMs,
    runsPerInvocation: 6,
    holdS: a.holdS,
    consumerUtilisation: a.consumerUtilisation,
  };
  const slowSized = queuesFor(load.burst * a.slowShare, slow);
  const retry = { ...slow, latencyMs: load.targetLatencyMs };
  const retrySized = queuesFor(load.burst * a.retryShare, retry);
  const queues = Math.max(2, slowSized.queues + retrySized.queues);
  return {
    kind: "pool",
    dispatchers_per_shard: perShard,
    pool_size: perShard * shards,
    queues,
    slow_invocations_at_burst: slowSized.invocations,
    slow_p99_burst_ms: queuesThrough(
      load.burst * a.slowShare,
      load.avg * a.slowShare,
      load.burstSeconds,
      queues,
      slow,
    ).p99_ms,
    scenarios,
    p99_ms: Object.fromEntries(Object.entries(scenarios).map(([name, s]) => [name, s.p99_ms])),
  };
}

/** Both lanes, the decision, the window each scenario needs, and the cost per million runs. */
export function planLanes(load, shards, costs, a) {
  const queues = queuesLane(load, a);
  const pool = poolLane(load, shards, a);
  const queuesHolds = Object.values(queues.p99_ms).every((ms) => ms < P99_TARGET_MS);
  const chosen = queuesHolds ? queues : pool;
  const rates = { average: load.avg, peak: load.peak, burst: load.burst };
  const handOffLeadMs = chosen.kind === "pool" ? a.handOffLeadMs : load.dispatchLeadMs;
  const window = Object.fromEntries(
    Object.entries(rates).map(([name, rate]) => [
      name,
      windowNeeded(rate, shards, { handOffLeadMs, latencyMs: load.targetLatencyMs, reportMs: a.reportMs }),
    ]),
  );
  const laneAt = (name) =>
    chosen.kind === "pool"
      ? {
          kind: "pool",
          shards,
          dispatchersInUse: chosen.scenarios[name].dispatchers_in_use,
          rounds: Math.ceil(rates[name] / shards / (chosen.scenarios[name].used_per_shard * 6)),
        }
      : { kind: "queues", shards, runsPerMessage: chosen.runs_per_invocation };
  const costAssumptions = { ...a, latencyMs: load.targetLatencyMs };
  return {
    decision: queuesHolds
      ? "queues: sized for latency, it holds p99 < 1 s at every load"
      : `pool: the Queues lane's p99 is ${queues.p99_ms.peak} ms at the peak and ${queues.p99_ms.burst} ms in the burst (consumers ramp after the backlog forms); the dispatcher pool's is ${pool.p99_ms.peak} / ${pool.p99_ms.burst} ms`,
    chosen: chosen.kind,
    queues_lane: queues,
    pool_lane: pool,
    window: {
      needed_per_shard: window,
      cap_per_shard: WINDOW_CAP_PER_SHARD,
      busy_shard_runs_per_s: Object.fromEntries(
        Object.entries(rates).map(([name, rate]) => [name, busyShardRuns(rate / shards)]),
      ),
    },
    p99_ms: chosen.p99_ms,
    // what a production deploy gets (scripts/lib/production-layout.mjs writes it)
    layout: {
      dispatch_queues: chosen.queues,
      runs_per_message: chosen.kind === "pool" ? 6 : chosen.runs_per_invocation,
      max_batch_size: 1,
      dispatchers_per_shard: chosen.kind === "pool" ? chosen.dispatchers_per_shard : 0,
    },
    cost_per_million: {
      average: costPerMillion(load.avg, laneAt("average"), costs, costAssumptions),
      peak: costPerMillion(load.peak, laneAt("peak"), costs, costAssumptions),
    },
  };
}
