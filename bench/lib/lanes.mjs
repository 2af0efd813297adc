// The two dispatch lanes the capacity model weighs, each sized for p99 lateness (scheduled instant
// to the target call being sent) under one published fact: an invocation, a Queue consumer's or a
// Durable Object's, keeps at most 6 outbound connections open at once.
//
//  - "queues": shard -> Cloudflare Queue -> consumer Worker -> fetch, sized for latency: runs per
//    invocation that 6 connections start inside the budget, queues for the consumer concurrency,
//    runs sent ahead of their instant and held by the consumer. Consumers are autoscaled by
//    Cloudflare from the backlog, decided after each batch, with no minimum or pre-warm setting.
//  - "pool": shard -> a fixed set of dispatcher Durable Objects per shard -> fetch, for fast
//    targets; slow targets, retries, overflow and dead letters stay on Queues. Each dispatcher is
//    its own I/O context (6 connections); the pool is named and fixed, so it never ramps.
//
// Both sit behind the shard's dispatch window (runs handed to the execution path and not yet
// reported, sized by AIMD on the delay between hand-off and claim; runs sent ahead count inside
// it), and behind the same claim and fence.

const CONNECTIONS = 6;

/** Runs per second due on the busiest 1 % of shards: Poisson(mean), normal approximation. */
export function busyShardRuns(mean) {
  return Math.max(1, Math.ceil(mean + 2.33 * Math.sqrt(mean)));
}

/** Weighted quantile over [value, weight] pairs. */
function quantile(pairs, q) {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, w]) => sum + w, 0);
  let seen = 0;
  for (const [value, weight] of sorted) {
    seen += weight;
    if (seen >= q * total - 1e-9) return value;
  }
  return sorted.at(-1)?.[0] ?? 0;
}

/** Poisson(mean) weights for counts around the mean (normal approximation past 50). */
function countWeights(mean) {
  const lo = Math.max(0, Math.floor(mean - 5 * Math.sqrt(mean) - 2));
  const hi = Math.ceil(mean + 5 * Math.sqrt(mean) + 2);
  const weights = [];
  for (let n = lo; n <= hi; n++) {
    const z = (n - mean) / Math.sqrt(Math.max(mean, 1e-9));
    weights.push([n, mean > 50 ? Math.exp(-0.5 * z * z) : poissonPmf(mean, n)]);
  }
  return weights;
}

function poissonPmf(mean, n) {
  let logP = -mean + n * Math.log(Math.max(mean, 1e-12));
  for (let k = 2; k <= n; k++) logP -= Math.log(k);
  return Math.exp(logP);
}

/**
 * Lateness of the runs one shard hands its dispatchers for one instant: n runs spread evenly over
 * as few dispatchers as start them in one round of 6 (at most `perShard`); the j-th run of a
 * dispatcher waits floor(j / 6) rounds of the target's time to first byte.
 */
function poolLatenesses(n, perShard, fixedMs, latencyMs) {
  if (n === 0) return [];
  const used = Math.min(perShard, Math.ceil(n / CONNECTIONS));
  const out = [];
  for (let d = 0; d < used; d++) {
    const runs = Math.floor(n / used) + (d < n % used ? 1 : 0);
    for (let j = 0; j < runs; j++) out.push(fixedMs + Math.floor(j / CONNECTIONS) * latencyMs);
  }
  return out;
}

/**
 * The pool lane at one arrival rate of fast runs: dispatchers in use, rounds, and the p99 of all
 * runs, counting the slow share (handed to Queues) as later than every fast run.
 */
export function poolAt(rate, shards, perShard, p) {
  const mean = rate / shards;
  const pairs = [];
  for (const [n, weight] of countWeights(mean)) {
    for (const ms of poolLatenesses(n, perShard, p.fixedMs, p.latencyMs)) pairs.push([ms, weight]);
  }
  const busy = busyShardRuns(mean);
  const usedPerShard = Math.min(perShard, Math.ceil(Math.max(1, mean) / CONNECTIONS));
  return {
    runs_per_shard_per_s: Math.round(mean * 10) / 10,
    busy_shard_runs: busy,
    dispatchers_in_use: shards * usedPerShard,
    used_per_shard: usedPerShard,
    busy_shard_rounds: Math.ceil(busy / (perShard * CONNECTIONS)),
    p99_ms: quantile(pairs, Math.min(1, 0.99 / (1 - (p.slowShare ?? 0)))),
  };
}

/** Dispatchers per shard: the fewest (a power of two) that start a busy shard's burst in budget. */
export function poolPerShard(burstRate, shards, p) {
  const busy = busyShardRuns(burstRate / shards);
  for (let perShard = 1; perShard <= 64; perShard *= 2) {
    const rounds = Math.ceil(busy / (perShard * CONNECTIONS));
    if (p.fixedMs + (rounds - 1) * p.latencyMs <= p.budgetMs) return perShard;
  }
  return 64;
}

/** Runs per Queues message (max_batch_size 1) that 6 connections start inside the budget. */
export function queuesRunsPerInvocation(p) {
  const rounds = Math.max(1, Math.floor((p.budgetMs - p.fixedMs) / p.latencyMs) + 1);
  return rounds * CONNECTIONS;
}

/**
 * The Queues lane through a load step from `baseRate` to `rate` for `seconds` (all runs due at
 * each second's start). Consumer invocations per queue start where the base load left them and
 * double after each completed batch (assumed: the published rule is only that Cloudflare decides
 * after a batch, from the backlog), up to 250. A held batch completes after its instant, so runs
 * sent ahead do not scale consumers before it. `warm`: every queue already at 250 (what no
 * published setting provides).
 */
export function queuesThrough(rate, baseRate, seconds, queues, p, warm = false) {
  const k = p.runsPerInvocation;
  const batchS = p.holdS + Math.ceil(k / CONNECTIONS) * (p.latencyMs / 1000);
  const perQueueMax = 250;
  let perQueue = warm ? perQueueMax : Math.max(1, (baseRate / k) * batchS) / queues;
  const stepMs = 10;
  const queue = [];
  const late = [];
  let nextScaleMs = batchS * 1000;
  for (let t = 0; t < (seconds + 900) * 1000; t += stepMs) {
    if (t % 1000 === 0 && t < seconds * 1000) queue.push([t, rate]);
    if (t >= nextScaleMs) {
      perQueue = Math.min(perQueueMax, perQueue * 2);
      nextScaleMs += batchS * 1000;
    }
    let served = (queues * perQueue * k * stepMs) / (batchS * 1000);
    while (served > 0 && queue.length > 0) {
      const head = queue[0];
      const n = Math.min(head[1], served);
      for (let j = 0; j < Math.ceil(k / CONNECTIONS); j++) {
        late.push([t - head[0] + p.fixedMs + j * p.latencyMs, n / Math.ceil(k / CONNECTIONS)]);
      }
      head[1] -= n;
      served -= n;
      if (head[1] <= 1e-9) queue.shift();
    }
    if (queue.length === 0 && t >= seconds * 1000) break;
  }
  return { p99_ms: Math.round(quantile(late, 0.99)), batch_seconds: batchS };
}

/** Queues (and consumer invocations) the lane needs for `rate` with held batches. */
export function queuesFor(rate, p) {
  const k = p.runsPerInvocation;
  const batchS = p.holdS + Math.ceil(k / CONNECTIONS) * (p.latencyMs / 1000);
  const invocations = Math.ceil((rate / k) * batchS);
  return { invocations, queues: Math.ceil(invocations / (250 * p.consumerUtilisation)), batchS };
}

/** The dispatch window's bound per shard the model checks against (an edgecron setting). */
export const WINDOW_CAP_PER_SHARD = 1_000;

/**
 * The dispatch window a shard needs so that it never holds back a due run: the busy shard's runs
 * in flight from hand-off (ahead of the instant) to the report of their outcome.
 */
export function windowNeeded(rate, shards, p) {
  const inFlightS = p.handOffLeadMs / 1000 + p.latencyMs / 1000 + p.reportMs / 1000;
  return Math.ceil(busyShardRuns(rate / shards) * Math.max(1, inFlightS));
}
