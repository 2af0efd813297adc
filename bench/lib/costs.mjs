// Cost per million runs at Cloudflare's list prices (Workers Paid, usage above the included
// amounts), for the plan's lane at a sustained rate, beside what a user pays elsewhere for the
// same million. Sources (read 2026-12-01):
//   Workers       https://developers.cloudflare.com/workers/platform/pricing/
//   Durable Obj.  https://developers.cloudflare.com/durable-objects/platform/pricing/
//   Queues        https://developers.cloudflare.com/queues/platform/pricing/
//   D1            https://developers.cloudflare.com/d1/platform/pricing/
//   KV            https://developers.cloudflare.com/kv/platform/pricing/
//   QStash        https://upstash.com/pricing/qstash
//   EventBridge   https://aws.amazon.com/eventbridge/pricing/ (Scheduler)

export const PRICES = {
  workerRequestsPerM: 0.3,
  workerCpuMsPerM: 0.02,
  doRequestsPerM: 0.15,
  doGbSecondsPerM: 12.5,
  doGb: 0.128, // a Durable Object is billed at 128 MB whatever it uses
  sqliteRowsWrittenPerM: 1.0, // Durable Object SQLite and D1 alike
  sqliteRowsReadPerM: 0.001,
  queueOpsPerM: 0.4, // a delivered message is 3 operations (write, read, delete)
  kvReadsPerM: 0.5,
  kvWritesPerM: 5.0,
  qstashPerM: 10.0, // pay as you go: $1 per 100,000 messages
  eventBridgeSchedulerPerM: 1.0,
};

/**
 * Dollars per million runs, one line per product, for the chosen lane at `rate` runs/s sustained.
 * `lane` carries the per-second quantities the lane model derived at that rate.
 */
export function costPerMillion(rate, lane, costs, a) {
  const perRun = (perSecond) => perSecond / rate;
  const offQueuesShare = a.slowShare + a.retryShare;
  const queueMessagesPerRun = lane.kind === "pool" ? offQueuesShare : 1 / lane.runsPerMessage;
  // Durable Object requests: the shard's alarm passes, and per dispatcher in use per instant the
  // hand-off, its alarm, the claim and the coalesced outcome (pool); claim + outcome per message (queues).
  const passesPerS = Math.min(rate, lane.shards);
  const doRequestsPerS =
    lane.kind === "pool"
      ? passesPerS + 4 * lane.dispatchersInUse
      : passesPerS + 2 * rate * queueMessagesPerRun;
  // Duration: a shard is active for its pass (CPU plus one awaited hop); a dispatcher in use from
  // its hand-off to the last call's first byte (a pending timer keeps it from hibernating).
  const shardActiveS = passesPerS * (a.hopMs / 1000) + rate * ((costs.shardCpuMsPerRun ?? 0.5) / 1000);
  const dispatcherActiveS =
    lane.kind === "pool"
      ? lane.dispatchersInUse * Math.min(1, (a.handOffLeadMs + a.latencyMs * lane.rounds + a.hopMs) / 1000)
      : 0;
  const consumerCpuMs = (costs.consumerFetchCpuMsPerRun ?? 0.12) + (costs.queueCpuMsPerMsg ?? 0.02);
  const lines = {
    "Workers requests (consumer invocations)": perRun(rate * queueMessagesPerRun) * PRICES.workerRequestsPerM,
    "Workers CPU (consumer)":
      (lane.kind === "pool" ? offQueuesShare : 1) * consumerCpuMs * PRICES.workerCpuMsPerM,
    "Durable Objects requests": perRun(doRequestsPerS) * PRICES.doRequestsPerM,
    "Durable Objects duration":
      perRun((shardActiveS + dispatcherActiveS) * PRICES.doGb) * PRICES.doGbSecondsPerM,
    ...rowLines(costs.rowsWritten, a),
    "Queues operations": 3 * queueMessagesPerRun * PRICES.queueOpsPerM,
    "D1 rows (dead letters)": a.deadLetterShare * a.d1RowsPerDeadLetter * PRICES.sqliteRowsWrittenPerM,
    "KV (dedup hint on redelivery)": a.retryShare * (PRICES.kvReadsPerM + PRICES.kvWritesPerM),
  };
  const total = Object.values(lines).reduce((sum, v) => sum + v, 0);
  return { lines, total };
}

/**
 * The rows a run writes, one line per store, each saying what it is made of (measured by the
 * bench; the fallback assumption is named as such when the results carry no count).
 */
function rowLines(rows, a) {
  const price = PRICES.sqliteRowsWrittenPerM;
  if (rows === null || rows === undefined) {
    return {
      [`SQLite rows written (assumed ${a.fallbackRowsWrittenPerRun}/run, not measured)`]:
        a.fallbackRowsWrittenPerRun * price,
    };
  }
  const fixed = (value) => value.toFixed(3);
  const shard = rows.shardSqlitePerRun + rows.setAlarmPerRun + rows.laterPrunePerRun;
  return {
    [`DO SQLite rows (${rows.scenario}: ${fixed(rows.shardSqlitePerRun)} journal+pages, ${fixed(rows.setAlarmPerRun)} setAlarm, ${fixed(rows.laterPrunePerRun)} prune /run)`]:
      shard * price,
    [`D1 rows written (${rows.scenario}: ${fixed(rows.d1PerRun)}/run)`]: rows.d1PerRun * price,
  };
}
