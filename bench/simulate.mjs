// npm run simulate [-- --input bench/results/latest.json] [-- --target-latency-ms 200] [-- --json]
//
// Capacity model for edgecron on Cloudflare: 10 M active jobs, 8,300 triggers/s average,
// 50,000/s peak, a 333,000/s midnight burst. Inputs: the per-run costs the bench measured
// (bench/results/latest.json, else the sample docs/bench-sample.json) and Cloudflare's published
// limits (bench/lib/limits-table.mjs). Prints the derived plan for the layout that is built (run
// history in the shards) and, for the average, peak and burst, every published limit against our
// load; docs/SCALING.md explains every line.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { limitsTable } from "./lib/limits-table.mjs";
import { printPlan } from "./lib/print-plan.mjs";

const ROOT = join(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    input: { type: "string" },
    jobs: { type: "string", default: "10000000" },
    avg: { type: "string", default: "8300" },
    peak: { type: "string", default: "50000" },
    burst: { type: "string", default: "333000" },
    "burst-seconds": { type: "string", default: "60" },
    "target-latency-ms": { type: "string", default: "200" },
    // runs per dispatch message, at most (durable-objects/shard/dispatch.ts RUNS_PER_MESSAGE)
    "bundle-size": { type: "string", default: "50" },
    // runs per consumer invocation (max_batch_size is this divided by the bundle)
    "batch-size": { type: "string", default: "100" },
    shards: { type: "string" },
    // HISTORY_RETENTION_DAYS: how long each shard keeps its runs' history records
    "history-days": { type: "string", default: "30" },
    // D1 databases the job definitions are spread over (default: enough for 50 % of 10 GB each)
    "job-databases": { type: "string" },
    json: { type: "boolean", default: false },
  },
});

/** Cloudflare's published limits the plan sizes against (the full list: bench/lib/limits-table.mjs). */
export const LIMITS = {
  queueMsgsPerS: 5_000, // per queue
  queueBatchMax: 100, // messages per consumer batch and per sendBatch
  queueConsumersMax: 250, // concurrent consumer invocations per queue
  queueMessageBytes: 128 * 1024,
  doSoftReqPerS: 1_000, // per Durable Object
  doStorageBytes: 10 * 2 ** 30, // SQLite per Durable Object
  d1StorageBytes: 10 * 2 ** 30, // per database
  d1QueriesPerInvocation: 1_000,
  workerConnections: 6, // simultaneous open outbound connections per invocation
};

/** Planning choices (not measured, not published): named so the output can be argued with. */
const PLAN = {
  shardUtilisation: 0.5, // a shard's thread may be busy this fraction of the time at peak
  queueUtilisation: 0.8, // of 5,000 msg/s
  // one run's history record in its shard with its events and three indexes, measured by
  // test/integration/run-history.test.ts (20,000 records of four events each)
  historyRecordBytes: 824,
  historyWritesPerRun: 1.1, // a run is written once it settles; only runs in flight > 1 s are written twice
  // a terminal run also stays in the wheel's `runs` table for 24 h (late-duplicate detection)
  wheelRunBytes: 1_000,
  storageUtilisation: 0.5, // plan each Durable Object / D1 database at half of its 10 GB
  runBytesInMessage: 200, // one run in a dispatch message (ids, fence, target reference)
  // tenant-wide runs pages and stats served per second, deployment-wide: each asks every shard
  apiFanoutReadsPerS: 50,
  // dead letters stay in D1: runs that exhaust every attempt, and what a letter stores
  deadLetterShare: 0.0001,
  deadLetterBytes: 1_500,
  pipelineMs: { alarm: 20, sendBatch: 30, queueDelivery: 150, claim: 20 }, // production hop estimates
};

function loadBench() {
  const candidates = [
    values.input,
    join(ROOT, "bench", "results", "latest.json"),
    join(ROOT, "docs", "bench-sample.json"),
  ];
  for (const path of candidates) {
    if (path && existsSync(path)) {
      const data = JSON.parse(readFileSync(path, "utf8"));
      if (data.burst?.drain_jobs_per_s || data.ceiling?.msgs_per_s) return { path, data };
    }
  }
  throw new Error("no bench results: run `npm run bench` (or keep docs/bench-sample.json)");
}

/** Per-run costs the bench measured, in workerd CPU milliseconds (one process, one thread). */
export function measuredCosts(bench) {
  const burst = bench.burst ?? {};
  const ceiling = bench.ceiling ?? {};
  const perRunMs =
    burst.cpu?.workerd_cpu_s && burst.jobs ? (burst.cpu.workerd_cpu_s * 1000) / burst.jobs : null;
  const fetchMs =
    ceiling.cpu_fetch?.workerd_cpu_s && ceiling.msgs
      ? (ceiling.cpu_fetch.workerd_cpu_s * 1000) / ceiling.msgs
      : null;
  const queueMs =
    ceiling.cpu_noop?.workerd_cpu_s && ceiling.msgs
      ? (ceiling.cpu_noop.workerd_cpu_s * 1000) / ceiling.msgs
      : null;
  const createMs = bench.create?.cpu?.workerd_cpu_s
    ? (bench.create.cpu.workerd_cpu_s * 1000) / bench.create.jobs
    : null;
  const scale = bench.scale ?? {};
  const jobsInInstance = scale.jobs_in_instance ?? scale.jobs;
  return {
    source: "bench",
    fullPathCpuMsPerRun: perRunMs,
    consumerFetchCpuMsPerRun: fetchMs,
    queueCpuMsPerMsg: queueMs,
    // what the shard side (tick, claim, outcome, history flush, D1) adds to a run
    shardCpuMsPerRun: perRunMs !== null && fetchMs !== null ? Math.max(0.05, perRunMs - fetchMs) : null,
    createCpuMsPerJob: createMs,
    doBytesPerJob: scale.do_sqlite_bytes && jobsInInstance ? scale.do_sqlite_bytes / jobsInInstance : null,
    d1BytesPerJob: scale.d1_sqlite_bytes && jobsInInstance ? scale.d1_sqlite_bytes / jobsInInstance : null,
    rssBytesPerJob: scale.rss_mb && jobsInInstance ? (scale.rss_mb * 2 ** 20) / jobsInInstance : null,
    localDrainPerS: burst.drain_jobs_per_s ?? null,
    localFetchCeilingPerS: ceiling.fetch_msgs_per_s ?? null,
    localQueueCeilingPerS: ceiling.msgs_per_s ?? null,
  };
}

const pow2 = (n) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

export function plan(costs, load) {
  load = { historyDays: 30, jobDatabases: null, ...load };
  const shardCpuMs = costs.shardCpuMsPerRun ?? 0.5;
  const perShardMaxPerS = 1000 / shardCpuMs; // one DO = one thread
  const out = {};
  // Shards: CPU at peak and in the burst, storage, and the ~1,000 req/s soft limit per object.
  const shardsForPeakCpu = load.peak / (perShardMaxPerS * PLAN.shardUtilisation);
  const shardsForBurstCpu = load.burst / (perShardMaxPerS * PLAN.shardUtilisation);
  const dailyRuns = load.avg * 86_400;
  const historyBytes = dailyRuns * load.historyDays * PLAN.historyRecordBytes;
  const wheelBytes = load.jobs * (costs.doBytesPerJob ?? 2_000) + dailyRuns * PLAN.wheelRunBytes;
  const shardsForStorage = (historyBytes + wheelBytes) / (LIMITS.doStorageBytes * PLAN.storageUtilisation);
  // Requests per shard: claim + outcome RPC per consumer batch that holds runs of that shard.
  // With shards mapped to queues (shards/queue small), a batch of 100 hits few shards.
  out.shards = {
    per_shard_max_triggers_per_s: Math.round(perShardMaxPerS),
    for_peak_cpu: Math.ceil(shardsForPeakCpu),
    for_burst_cpu: Math.ceil(shardsForBurstCpu),
    for_storage: Math.ceil(shardsForStorage),
  };
  out.shards.recommended = load.shards ?? Math.max(256, pow2(Math.max(shardsForPeakCpu, shardsForStorage)));
  out.shards.jobs_per_shard = Math.round(load.jobs / out.shards.recommended);
  out.shards.burst_seconds_per_shard_at_recommended =
    Math.round(
      ((load.burst * load.burstSeconds) /
        out.shards.recommended /
        (perShardMaxPerS * PLAN.shardUtilisation)) *
        10,
    ) / 10;

  // Queues: 5,000 msg/s each. A shard bundles the runs one tick hands over, up to the cap per
  // message; schedules have whole-second instants, so a tick holds about rate / shards runs.
  const bundleAt = (rate) =>
    Math.min(load.bundleSize, Math.max(1, Math.floor(rate / out.shards.recommended)));
  const bundle = bundleAt(load.burst);
  const queueRate = LIMITS.queueMsgsPerS * PLAN.queueUtilisation;
  out.queues = {
    bundle_cap: load.bundleSize,
    runs_per_message: { average: bundleAt(load.avg), peak: bundleAt(load.peak), burst: bundle },
    for_average: Math.ceil(load.avg / bundleAt(load.avg) / queueRate),
    for_peak: Math.ceil(load.peak / bundleAt(load.peak) / queueRate),
    for_burst: Math.ceil(load.burst / bundle / queueRate),
  };
  out.queues.recommended = out.queues.for_burst;
  out.queues.shards_per_queue = Math.max(1, Math.round(out.shards.recommended / out.queues.recommended));

  // Consumers: a batch of 100 runs makes its target calls 6 at a time (Workers' simultaneous
  // connection limit), so one invocation moves ~6 / target latency runs per second.
  const latencyS = load.targetLatencyMs / 1000;
  const perInvocationPerS = LIMITS.workerConnections / latencyS;
  // max_batch_size: the last run of a batch waits for the calls ahead of it (6 at a time).
  const batchSeconds = Math.ceil(load.batchSize / LIMITS.workerConnections) * latencyS;
  const concurrency = (rate) => Math.ceil(rate / perInvocationPerS);
  out.consumers = {
    target_latency_ms: load.targetLatencyMs,
    runs_per_invocation: load.batchSize,
    max_batch_size_messages_at_burst: Math.max(1, Math.floor(load.batchSize / bundle)),
    runs_per_s_per_invocation: Math.round(perInvocationPerS),
    batch_seconds: Math.round(batchSeconds * 10) / 10,
    concurrent_for_average: concurrency(load.avg),
    concurrent_for_peak: concurrency(load.peak),
    concurrent_for_burst: concurrency(load.burst),
  };
  out.consumers.queues_needed_for_250_per_queue = Math.ceil(
    out.consumers.concurrent_for_burst / LIMITS.queueConsumersMax,
  );
  // With bundling the message rate rarely decides the queue count; consumer concurrency does.
  out.queues.recommended = Math.max(out.queues.recommended, out.consumers.queues_needed_for_250_per_queue);
  out.queues.shards_per_queue = Math.max(1, Math.round(out.shards.recommended / out.queues.recommended));
  out.consumers.per_queue_at_burst = Math.ceil(out.consumers.concurrent_for_burst / out.queues.recommended);

  // Run history: each shard keeps its runs' records (local SQLite writes, no request, no D1).
  const S = out.shards.recommended;
  const writesPerShard = (rate) => Math.round((rate / S) * PLAN.historyWritesPerRun);
  out.history = {
    record_bytes: PLAN.historyRecordBytes,
    retention_days: load.historyDays,
    record_writes_per_s_per_shard: {
      average: writesPerShard(load.avg),
      peak: writesPerShard(load.peak),
      burst: writesPerShard(load.burst),
    },
    bytes_per_day: Math.round(dailyRuns * PLAN.historyRecordBytes),
    bytes_total: Math.round(historyBytes),
    shard_bytes: Math.round((historyBytes + wheelBytes) / S),
    shards_for_storage: Math.ceil(shardsForStorage),
    // a tenant-wide page or the stats ask every shard once
    fanout_requests_per_page: S,
  };
  // D1 now holds definitions (split over job databases), tenants, keys, alerts and dead letters.
  const definitionsBytes = load.jobs * (costs.d1BytesPerJob ?? 600);
  const jobDatabases =
    load.jobDatabases ??
    Math.max(1, Math.ceil(definitionsBytes / (LIMITS.d1StorageBytes * PLAN.storageUtilisation)));
  out.d1 = {
    definitions_bytes: Math.round(definitionsBytes),
    job_databases: jobDatabases,
    bytes_per_job_database: Math.round(definitionsBytes / jobDatabases),
  };

  // Lateness: the production pipeline's hops, plus queueing when arrivals exceed capacity.
  const baseMs = Object.values(PLAN.pipelineMs).reduce((a, b) => a + b, 0) + load.targetLatencyMs;
  const capacity = Math.min(
    out.shards.recommended * perShardMaxPerS * PLAN.shardUtilisation * 2, // shards may run hot in a burst
    out.queues.recommended * queueRate * bundle,
    out.queues.recommended * LIMITS.queueConsumersMax * perInvocationPerS,
  );
  out.lateness = {
    pipeline_ms: baseMs,
    capacity_runs_per_s: Math.round(capacity),
    // at the average rate batches are not full: a run waits for the calls ahead of it
    p99_average_ms: Math.round(baseMs + batchSeconds * 1000 * 0.99 - load.targetLatencyMs),
    p99_peak_ms: simulateBurst(load.peak, 1, capacity, baseMs, batchSeconds).p99,
    burst: simulateBurst(load.burst, load.burstSeconds, capacity, baseMs, batchSeconds),
  };
  // Requests per shard per second in the burst: one claim and one outcome RPC per message, and a
  // message holds runs of one shard, whatever queue carries it.
  const runsPerShardBurst = load.burst / out.shards.recommended;
  out.shards.burst_rpc_per_s_per_shard = Math.round((2 * runsPerShardBurst) / bundle);
  out.shards.burst_runs_per_s_per_shard = Math.round(runsPerShardBurst);
  // Every published limit against the load: the table decides what needs a raise.
  out.limit_increases = [];
  out.limits = limitsTable(out, costs, load, PLAN);
  for (const row of out.limits.rows) {
    if (row.status === "raise") out.limit_increases.push(`${row.limit}: ${row.raise}`);
  }
  return out;
}

/**
 * Fluid queue model, 10 ms steps: `rate` runs/s arrive (all due at the start of each second,
 * as at the top of the minute) for `seconds`; `capacity` runs/s leave; a run's lateness is its
 * wait plus the pipeline and its position in a consumer batch.
 */
function simulateBurst(rate, seconds, capacity, baseMs, batchSeconds) {
  const stepMs = 10;
  const latenesses = []; // [lateMs, count]
  const queue = []; // [dueMs, count]
  for (let t = 0; t < (seconds + 600) * 1000; t += stepMs) {
    if (t % 1000 === 0 && t < seconds * 1000) {
      queue.push([t, rate]);
    }
    let served = (capacity * stepMs) / 1000;
    while (served > 0 && queue.length > 0) {
      const head = queue[0];
      const n = Math.min(head[1], served);
      // a run's place in its consumer batch adds 0..batchSeconds: spread over 10 buckets
      for (let k = 0; k < 10; k++) {
        latenesses.push([t - head[0] + baseMs + (batchSeconds * 1000 * (k + 0.5)) / 10, n / 10]);
      }
      head[1] -= n;
      served -= n;
      if (head[1] <= 1e-9) queue.shift();
    }
    if (queue.length === 0 && t >= seconds * 1000) break;
  }
  latenesses.sort((a, b) => a[0] - b[0]);
  const total = latenesses.reduce((sum, [, n]) => sum + n, 0);
  const quantile = (q) => {
    let seen = 0;
    for (const [ms, n] of latenesses) {
      seen += n;
      if (seen >= q * total) return Math.round(ms);
    }
    return null;
  };
  return { runs: Math.round(total), p50: quantile(0.5), p99: quantile(0.99), max: quantile(1) };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const { path, data } = loadBench();
  const load = {
    jobs: Number(values.jobs),
    avg: Number(values.avg),
    peak: Number(values.peak),
    burst: Number(values.burst),
    burstSeconds: Number(values["burst-seconds"]),
    targetLatencyMs: Number(values["target-latency-ms"]),
    bundleSize: Number(values["bundle-size"]),
    batchSize: Number(values["batch-size"]),
    shards: values.shards ? Number(values.shards) : null,
    historyDays: Number(values["history-days"]),
    jobDatabases: values["job-databases"] ? Number(values["job-databases"]) : null,
  };
  const costs = measuredCosts(data);
  const result = {
    input: path,
    bench_started_at: data.meta?.started_at,
    load,
    limits: LIMITS,
    assumptions: PLAN,
    measured: costs,
    plan: plan(costs, load),
  };
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    printPlan(result);
  }
}
