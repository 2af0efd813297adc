// npm run simulate [-- --input bench/results/latest.json] [-- --target-latency-ms 200] [-- --json]
//   [-- --flexible-share 0.5 --flexible-max-s 900]: that share of the midnight jobs on a flexible window
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
import { planLanes } from "./lib/lane-plan.mjs";
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
    // DISPATCH_LEAD_MS: how far ahead of its instant a shard creates a run and hands it over
    "dispatch-lead-ms": { type: "string", default: "5000" },
    shards: { type: "string" },
    // HISTORY_RETENTION_DAYS: how long each shard keeps its runs' history records
    "history-days": { type: "string", default: "30" },
    // D1 databases the job definitions are spread over (default: enough for 50 % of 10 GB each)
    "job-databases": { type: "string" },
    // share (0-1) of the midnight burst's jobs with `flexible_window: {max}`, and that max in seconds
    "flexible-share": { type: "string", default: "0" },
    "flexible-max-s": { type: "string", default: "900" },
    json: { type: "boolean", default: false },
  },
});

/**
 * The midnight burst when a share of its jobs has a flexible window of `maxS` seconds: their fires
 * spread uniformly over [instant, instant + maxS] (a stable hash per job and instant), so their
 * arrival rate is the box of `burstSeconds` convolved with that spread, whose height is
 * rate * min(burstSeconds, maxS) / maxS; the others still arrive in the box. The peak is at most
 * the two heights added, over `burstSeconds + maxS` seconds for the opted-in ones.
 */
export function flexibleBurst(burstPerS, burstSeconds, share, maxS) {
  const opted = burstPerS * share;
  const spreadHeight = maxS > 0 ? (opted * Math.min(burstSeconds, maxS)) / maxS : opted;
  return {
    share,
    max_s: maxS,
    peak_per_s: Math.round(burstPerS - opted + spreadHeight),
    spread_seconds: burstSeconds + maxS,
  };
}

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
  // The dispatch lanes (bench/lib/lanes.mjs). Assumptions, not published figures:
  lane: {
    budgetMs: 800, // the last call of an instant starts within this (p99 < 1 s, with margin)
    poolFixedMs: 30, // a dispatcher's alarm (published: "usually within a few ms") + the claim RPC
    queueFixedMs: 30, // a held message's release + the claim RPC
    holdS: 0.5, // a message sent ahead arrives up to 1 s early (delaySeconds is whole seconds)
    consumerUtilisation: 0.8, // of 250 consumer invocations per queue
    handOffLeadMs: 250, // a shard hands a dispatcher its runs this long before their instant
    reportMs: 100, // outcomes are coalesced per shard for up to 100 ms
    hopMs: 20, // one Durable Object RPC
    slowShare: 0.005, // runs whose target answers slower than the hand-off threshold
    slowLatencyMs: 5_000, // their time to first byte
    retryShare: 0.01, // runs that need a second attempt
    deadLetterShare: 0.0001,
    d1RowsPerDeadLetter: 4, // the letter and its indexes
    // Rows written per run come from the bench (measuredRows below); this is used only when the
    // bench results carry no row count (an old results file), and says so in the output.
    fallbackRowsWrittenPerRun: 1,
  },
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

/**
 * Billed rows written per run as the bench counted them (workerd's rowsWritten per statement,
 * setAlarm calls, D1's meta.rows_written, and the later prunes), from the steady scenario (the
 * sustained rate a bill is made of), else the burst; split by what writes them.
 */
export function measuredRows(bench) {
  for (const scenario of ["steady", "burst"]) {
    const result = bench[scenario];
    const rows = result?.rows;
    if (typeof result?.rows_written_per_run !== "number" || !rows?.runs) continue;
    const perRun = (count) => count / rows.runs;
    let shard = 0;
    let d1 = 0;
    for (const [store, count] of Object.entries(rows.at_run_time?.by_store ?? {})) {
      if (store.startsWith("d1:")) d1 += count;
      else shard += count;
    }
    return {
      scenario,
      perRun: result.rows_written_per_run,
      shardSqlitePerRun: perRun(shard),
      setAlarmPerRun: perRun(rows.at_run_time?.set_alarm_calls ?? 0),
      d1PerRun: perRun(d1),
      laterPrunePerRun: rows.later_prune?.per_run ?? 0,
    };
  }
  return null;
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
    rowsWritten: measuredRows(bench),
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
    // a tenant-wide page asks only the shards its tenant index names: a tenant of J jobs spans
    // ~S (1 - e^(-J/S)) shards; the plan's largest tenant is on every shard
    fanout_requests_per_page: {
      tenant_of_10_jobs: Math.ceil(S * (1 - Math.exp(-10 / S))),
      tenant_of_10000_jobs: Math.ceil(S * (1 - Math.exp(-10_000 / S))),
      largest_tenant: S,
    },
    // the overview: one stats fan-out (lateness reads the same answer) and one failures fan-out
    overview_subrequests: 2 * S + 10,
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

  // The dispatch lane: both sized for latency, the one that holds p99 < 1 s chosen.
  out.lane = planLanes(load, out.shards.recommended, costs, PLAN.lane);
  out.queues = { recommended: out.lane[`${out.lane.chosen}_lane`].queues };
  out.lateness = {
    pipeline_ms: out.lane.chosen === "pool" ? PLAN.lane.poolFixedMs : PLAN.lane.queueFixedMs,
    p99_average_ms: out.lane.p99_ms.average,
    p99_peak_ms: out.lane.p99_ms.peak,
    burst: { p99: out.lane.p99_ms.burst },
  };
  out.shards.burst_runs_per_s_per_shard = Math.round(load.burst / out.shards.recommended);
  // Every published limit against the load: the table decides what needs a raise.
  out.limit_increases = [];
  out.limits = limitsTable(out, costs, load, PLAN);
  for (const row of out.limits.rows) {
    if (row.status === "raise") out.limit_increases.push(`${row.limit}: ${row.raise}`);
  }
  return out;
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
    dispatchLeadMs: Number(values["dispatch-lead-ms"]),
    shards: values.shards ? Number(values.shards) : null,
    historyDays: Number(values["history-days"]),
    jobDatabases: values["job-databases"] ? Number(values["job-databases"]) : null,
  };
  const share = Math.min(1, Math.max(0, Number(values["flexible-share"])));
  const flexible = flexibleBurst(load.burst, load.burstSeconds, share, Number(values["flexible-max-s"]));
  // The plan sizes for the burst as it arrives: with opted-in jobs, the lower spread peak.
  if (share > 0) load.burst = flexible.peak_per_s;
  const costs = measuredCosts(data);
  const result = {
    flexible_burst: share > 0 ? { ...flexible, nominal_per_s: Number(values.burst) } : null,
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
