// Prints the capacity plan of bench/simulate.mjs as text: the derived plan, then the table of
// every published limit against our load (./limits-table.mjs).
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
  console.log("measured locally (npm run bench; workerd CPU per run, one thread):");
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
  console.log("dispatch queues:");
  console.log(
    `  ${f(p.queues.for_average)} for the average, ${f(p.queues.for_peak)} for the peak, ${f(p.queues.for_burst)} for the burst (runs per message ${p.queues.runs_per_message.average} / ${p.queues.runs_per_message.peak} / ${p.queues.runs_per_message.burst}, cap ${p.queues.bundle_cap}; ${r.limits.queueMsgsPerS}/s x ${r.assumptions.queueUtilisation})`,
  );
  console.log(`  recommended ${f(p.queues.recommended)} queues, ~${p.queues.shards_per_queue} shards each`);
  console.log("consumers:");
  console.log(
    `  ${r.limits.workerConnections} connections per invocation / ${r.load.targetLatencyMs} ms => ${f(p.consumers.runs_per_s_per_invocation)} runs/s per invocation; ${r.load.batchSize} runs per invocation (max_batch_size ${p.consumers.max_batch_size_messages_at_burst} messages at the burst's bundle) take ~${p.consumers.batch_seconds} s`,
  );
  console.log(
    `  concurrent invocations: ${f(p.consumers.concurrent_for_average)} average, ${f(p.consumers.concurrent_for_peak)} peak, ${f(p.consumers.concurrent_for_burst)} burst (${f(p.consumers.per_queue_at_burst)} per queue; 250 max per queue => >= ${f(p.consumers.queues_needed_for_250_per_queue)} queues)`,
  );
  const h = p.history;
  console.log("run history (in the shards):");
  console.log(
    `  ${h.record_bytes} B a record; record writes/s per shard ${f(h.record_writes_per_s_per_shard.average)} average, ${f(h.record_writes_per_s_per_shard.peak)} peak, ${f(h.record_writes_per_s_per_shard.burst)} burst (local SQLite, no request)`,
  );
  console.log(
    `  ${f(h.bytes_per_day / 2 ** 30, 1)} GiB/day, ${f(h.bytes_total / 2 ** 40, 1)} TiB for ${h.retention_days} days => ${f(h.shards_for_storage)} shards at ${r.assumptions.storageUtilisation * 100} % of 10 GB; ${f(h.shard_bytes / 2 ** 30, 2)} GiB per shard at SHARD_COUNT ${f(p.shards.recommended)}`,
  );
  console.log(`  tenant-wide runs page / stats: ${f(h.fanout_requests_per_page)} shard requests each`);
  console.log(
    `D1: definitions ${f(p.d1.definitions_bytes / 2 ** 30, 1)} GiB over ${p.d1.job_databases} job databases (${f(p.d1.bytes_per_job_database / 2 ** 30, 1)} GiB each); no run history`,
  );
  console.log(
    `shards in the burst: ${f(p.shards.burst_runs_per_s_per_shard)} runs/s per shard; claim+outcome RPCs ${f(p.shards.burst_rpc_per_s_per_shard)}/s per shard (one each per message; soft limit ~1,000)`,
  );
  console.log("limits to raise (account settings or a request to Cloudflare):");
  for (const item of p.limit_increases) console.log(`  - ${item}`);
  if (p.limit_increases.length === 0) console.log("  - none");
  console.log("lateness (predicted):");
  console.log(
    `  pipeline ${p.lateness.pipeline_ms} ms (alarm, sendBatch, queue delivery, claim, target); capacity ${f(p.lateness.capacity_runs_per_s)} runs/s`,
  );
  console.log(
    `  p99 average load ~${f(p.lateness.p99_average_ms)} ms; top-of-minute peak ~${f(p.lateness.p99_peak_ms)} ms; midnight burst p50 ${f(p.lateness.burst.p50)} ms, p99 ${f(p.lateness.burst.p99)} ms, max ${f(p.lateness.burst.max)} ms`,
  );
  console.log("");
  printLimitsTable(p.limits, f);
}
