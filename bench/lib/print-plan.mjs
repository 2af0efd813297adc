// Prints the capacity plan of bench/simulate.mjs as text: the derived plan, then the table of
// every published limit against our load (./limits-table.mjs).
import { PRICES } from "./costs.mjs";
import { printLimitsTable } from "./limits-table.mjs";

export function printPlan(r) {
  const f = (v, d = 0) =>
    v === null || v === undefined ? "n/a" : Number(v).toLocaleString("en-US", { maximumFractionDigits: d });
  const m = r.measured;
  const p = r.plan;
  console.log(`edgecron capacity plan — inputs: ${r.input} (bench of ${r.bench_started_at})`);
  console.log(
    `load: ${f(r.load.jobs)} active jobs; ${f(r.load.avg)}/s average, ${f(r.load.peak)}/s peak, ${f(r.load.burst)}/s for ${r.load.burstSeconds} s at midnight; target latency ${r.load.targetLatencyMs} ms\n`,
  );
  const fb = r.flexible_burst;
  if (fb)
    console.log(
      `midnight burst with ${f(fb.share * 100)} % of its jobs on flexible_window {max: ${fb.max_s}s}: ${f(fb.nominal_per_s)}/s for ${r.load.burstSeconds} s becomes at most ${f(fb.peak_per_s)}/s, the opted-in fires spread over ${f(fb.spread_seconds)} s (the plan below sizes for that)\n`,
    );
  console.log(
    "measured locally (npm run bench; workerd CPU per run, one thread): burst.cpu / burst.jobs (full path), ceiling.cpu_fetch and cpu_noop / ceiling.msgs (consumer), create.cpu / create.jobs, scale.* (storage per job)",
  );
  console.log(
    `  full path ${f(m.fullPathCpuMsPerRun, 3)} ms/run = consumer+fetch ${f(m.consumerFetchCpuMsPerRun, 3)} + shard side ${f(m.shardCpuMsPerRun, 3)} ms; queue alone ${f(m.queueCpuMsPerMsg, 3)} ms/msg; create ${f(m.createCpuMsPerJob, 3)} ms/job`,
  );
  console.log(
    `  storage: DO SQLite ${f(m.doBytesPerJob)} B/job, D1 ${f(m.d1BytesPerJob)} B/job; workerd RSS ${f(m.rssBytesPerJob)} B/job`,
  );
  console.log(
    `  local rates: drain ${f(m.localDrainPerS)}/s, fetch ceiling ${f(m.localFetchCeilingPerS)}/s, queue ceiling ${f(m.localQueueCeilingPerS)}/s\n`,
  );
  console.log("shards (ShardScheduler Durable Objects):");
  console.log(
    `  one shard sustains ~${f(p.shards.per_shard_max_triggers_per_s)} triggers/s of CPU; at ${r.assumptions.shardUtilisation * 100} % utilisation: ${f(p.shards.for_peak_cpu)} for the peak, ${f(p.shards.for_burst_cpu)} for the burst, ${f(p.shards.for_storage)} for storage`,
  );
  console.log(
    `  recommended SHARD_COUNT ${f(p.shards.recommended)} (${f(p.shards.jobs_per_shard)} jobs each); midnight work per shard ~${p.shards.burst_seconds_per_shard_at_recommended} s of its thread`,
  );
  printLanes(r, f);
  const h = p.history;
  console.log("run history (in the shards):");
  console.log(
    `  ${h.record_bytes} B a record; record writes/s per shard ${f(h.record_writes_per_s_per_shard.average)} average, ${f(h.record_writes_per_s_per_shard.peak)} peak, ${f(h.record_writes_per_s_per_shard.burst)} burst (local SQLite, no request)`,
  );
  console.log(
    `  ${f(h.bytes_per_day / 2 ** 30, 1)} GiB/day, ${f(h.bytes_total / 2 ** 40, 1)} TiB for ${h.retention_days} days => ${f(h.shards_for_storage)} shards at ${r.assumptions.storageUtilisation * 100} % of 10 GB; ${f(h.shard_bytes / 2 ** 30, 2)} GiB per shard at SHARD_COUNT ${f(p.shards.recommended)}`,
  );
  const pages = h.fanout_requests_per_page;
  console.log(
    `  tenant-wide runs page / stats / failures ask the shards of the tenant's index: ${f(pages.tenant_of_10_jobs)} for a tenant of 10 jobs, ${f(pages.tenant_of_10000_jobs)} for 10,000 jobs, ${f(pages.largest_tenant)} for one on every shard; its console overview ${f(h.overview_subrequests)} subrequests`,
  );
  console.log(
    `D1: definitions ${f(p.d1.definitions_bytes / 2 ** 30, 1)} GiB over ${p.d1.job_databases} job databases (${f(p.d1.bytes_per_job_database / 2 ** 30, 1)} GiB each); no run history`,
  );
  console.log(
    `shards in the burst: ${f(p.shards.burst_runs_per_s_per_shard)} runs/s per shard (the busiest 1 %: ${f(p.lane.window.busy_shard_runs_per_s.burst)})`,
  );
  console.log("limits to raise (account settings or a request to Cloudflare):");
  for (const item of p.limit_increases) console.log(`  - ${item}`);
  if (p.limit_increases.length === 0) console.log("  - none");
  console.log("lateness (predicted, scheduled instant to the target call sent; chosen lane):");
  console.log(
    `  p99 average ~${f(p.lateness.p99_average_ms)} ms; top-of-minute peak ~${f(p.lateness.p99_peak_ms)} ms; midnight burst ~${f(p.lateness.burst.p99)} ms`,
  );
  printCosts(r, f);
  console.log("");
  printLimitsTable(p.limits, f);
}

function printLanes(r, f) {
  const lane = r.plan.lane;
  const q = lane.queues_lane;
  const pool = lane.pool_lane;
  console.log("dispatch lane (6 outbound connections per invocation and per Durable Object):");
  console.log(
    `  queues, sized for latency: ${q.runs_per_invocation} runs per invocation (max_batch_size ${q.max_batch_size}, ${q.batch_seconds} s held + called), ${f(q.queues)} queues for ${f(q.invocations_at_burst)} invocations in the burst; consumers ramp from the average's level, doubling per batch (assumed)`,
  );
  console.log(
    `    p99 ${f(q.p99_ms.average)} / ${f(q.p99_ms.peak)} / ${f(q.p99_ms.burst)} ms (average / peak / burst); burst with every queue already at 250: ${f(q.p99_burst_if_warm_ms)} ms`,
  );
  const s = pool.scenarios;
  console.log(
    `  pool: ${pool.dispatchers_per_shard} dispatcher Durable Objects per shard (${f(pool.pool_size)}), in use ${f(s.average.dispatchers_in_use)} / ${f(s.peak.dispatchers_in_use)} / ${f(s.burst.dispatchers_in_use)}; a busy shard's instant in ${s.burst.busy_shard_rounds} rounds of 6 in the burst`,
  );
  console.log(
    `    p99 ${f(pool.p99_ms.average)} / ${f(pool.p99_ms.peak)} / ${f(pool.p99_ms.burst)} ms; slow targets (${r.assumptions.lane.slowShare * 100} %, ${f(r.assumptions.lane.slowLatencyMs)} ms) and retries on ${f(pool.queues)} queues (${f(pool.slow_invocations_at_burst)} slow invocations in the burst, their p99 ${f(pool.slow_p99_burst_ms)} ms)`,
  );
  const w = lane.window;
  console.log(
    `  dispatch window per shard: needs ${f(w.needed_per_shard.average)} / ${f(w.needed_per_shard.peak)} / ${f(w.needed_per_shard.burst)} runs (hand-off to report on the busiest 1 % of shards), bound ${f(w.cap_per_shard)}`,
  );
  console.log(`  chosen: ${lane.decision}`);
}

function printCosts(r, f) {
  const cost = r.plan.lane.cost_per_million;
  console.log(`cost per million runs at list prices (${r.plan.lane.chosen} lane, sustained rate):`);
  const names = Object.keys(cost.average.lines);
  const qstash = "QStash, pay as you go ($1 per 100,000 messages)";
  const eventBridge = "EventBridge Scheduler ($1.00 per million invocations)";
  const width = Math.max(...[...names, qstash, eventBridge].map((name) => name.length));
  const money = (v) => `$${v < 0.01 ? v.toFixed(4) : v.toFixed(2)}`;
  console.log(`  ${"".padEnd(width)} | average ${f(r.load.avg)}/s | peak ${f(r.load.peak)}/s`);
  for (const name of names) {
    console.log(
      `  ${name.padEnd(width)} | ${money(cost.average.lines[name]).padEnd(16)} | ${money(cost.peak.lines[name])}`,
    );
  }
  console.log(
    `  ${"edgecron total".padEnd(width)} | ${money(cost.average.total).padEnd(16)} | ${money(cost.peak.total)}`,
  );
  console.log(`  ${qstash.padEnd(width)} | ${money(PRICES.qstashPerM)}`);
  console.log(`  ${eventBridge.padEnd(width)} | ${money(PRICES.eventBridgeSchedulerPerM)}`);
  console.log("  sources: bench/lib/costs.mjs and docs/SCALING.md");
}
