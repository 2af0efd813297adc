// Every published Cloudflare limit edgecron runs into, against our load at the average, the peak
// and the midnight burst, for the layout that is built (run history in the shards, job
// definitions over several D1 databases, bundled dispatch over several queues).
//
// Sources (read 2026-12-01): developers.cloudflare.com/queues/platform/limits/,
// /durable-objects/platform/limits/, /d1/platform/limits/, /workers/platform/limits/ (and the
// 2026-02-11 changelog on subrequests), /analytics/analytics-engine/limits/.
//
// kind: "hard" cannot be raised (a design must stay under it); "raise": Cloudflare raises it on
// request or it is an account or Worker setting. A row's status is "ok", or "raise" (over a
// raisable limit: named in the plan), or "over" (over a hard limit: the plan is wrong).

import { WINDOW_CAP_PER_SHARD } from "./lanes.mjs";
import { scenarioContext } from "./limits-context.mjs";

const KB = 1024;
const GB = 2 ** 30;

/** The published limits, one row each. `perScenario(ctx)` returns our load in the limit's unit. */
const ROWS = [
  {
    limit: "Queues: messages/s per queue",
    value: 5_000,
    unit: "msg/s",
    kind: "hard",
    how: "runs bundled per message over all dispatch queues",
    load: (c) => c.messagesPerS / c.queues,
  },
  {
    limit: "Queues: concurrent consumer invocations per queue",
    value: 250,
    unit: "invocations",
    kind: "hard",
    how: "held batches of the lane's Queues traffic, 6 target calls at a time",
    load: (c) => c.concurrentInvocations / c.queues,
  },
  {
    limit: "Queues: queues per account",
    value: 10_000,
    unit: "queues",
    kind: "raise",
    how: "the lane's queues plus one shared dead-letter queue",
    load: (c) => c.queues + 1,
  },
  {
    limit: "Queues: messages per sendBatch",
    value: 100,
    unit: "msgs",
    kind: "hard",
    how: "one shard's messages of one tick, split at 100",
    load: (c) => Math.min(100, c.messagesPerShardTick),
  },
  {
    limit: "Queues: bytes per sendBatch",
    value: 256 * KB,
    unit: "B",
    kind: "hard",
    how: "split at 192 KB by the shard",
    load: (c) => Math.min(192 * KB, Math.min(100, c.messagesPerShardTick) * c.messageBytes),
  },
  {
    limit: "Queues: message size",
    value: 128 * KB,
    unit: "B",
    kind: "hard",
    how: "runs per message x bytes per run",
    load: (c) => c.messageBytes,
  },
  {
    limit: "Queues: messages per consumer batch",
    value: 100,
    unit: "msgs",
    kind: "hard",
    how: "max_batch_size",
    load: (c) => c.consumerBatchMessages,
  },
  {
    limit: "Queues: delaySeconds",
    value: 86_400,
    unit: "s",
    kind: "hard",
    how: "only redelivery after a failed claim (1 s) or letter (5 s); timers live in the shards",
    load: () => 5,
  },
  {
    limit: "Queues: backlog per queue",
    value: 25 * GB,
    unit: "B",
    kind: "hard",
    how: "the largest backlog of the fluid model (at least one second of arrivals)",
    load: (c) => (c.backlogRuns * c.runBytes) / c.queues,
  },
  {
    limit: "Queues: consumer wall time per invocation",
    value: 900,
    unit: "s",
    kind: "hard",
    how: "runs per invocation, 6 at a time, at the target latency",
    load: (c) => c.batchSeconds,
  },
  {
    limit: "Durable Objects: requests/s per object (soft)",
    value: 1_000,
    unit: "req/s",
    kind: "hard",
    how: "a shard: its pass, per dispatcher (or message) its hand-off, claim and outcome, plus tenant-wide reads",
    load: (c) => c.shardRequestsPerS + c.fanoutReadsPerS,
  },
  {
    limit: "Durable Objects: requests/s per dispatcher (soft)",
    value: 1_000,
    unit: "req/s",
    kind: "hard",
    how: "a dispatcher: one hand-off, one alarm and one claim per instant it has runs for",
    load: (c) => c.dispatcherRequestsPerS,
  },
  {
    limit: "Durable Objects: storage per object",
    value: 10 * GB,
    unit: "B",
    kind: "hard",
    how: "jobs, 24 h of wheel runs and the retained history records, per shard",
    load: (c) => c.shardBytes,
  },
  {
    limit: "Durable Objects: CPU per request (alarm pass)",
    value: 30_000,
    unit: "ms",
    kind: "raise",
    how: "one second of a shard's runs in one pass (configurable to 5 min)",
    load: (c) => c.runsPerShardS * c.shardCpuMs,
  },
  {
    limit: "Durable Objects: one thread per object (derived)",
    value: 1_000,
    unit: "ms/s",
    kind: "hard",
    how: "shard CPU per second of wall time",
    load: (c) => c.runsPerShardS * c.shardCpuMs,
  },
  {
    limit: "Durable Objects: simultaneous outgoing connections",
    value: 6,
    unit: "conns",
    kind: "hard",
    how: "a shard's pass: hand-offs and sendBatch calls, pooled at 6 (they run ahead of the instant)",
    load: (c) => c.shardConnections,
  },
  {
    limit: "Durable Objects: outgoing connections per dispatcher",
    value: 6,
    unit: "conns",
    kind: "hard",
    how: "a dispatcher's target calls, pooled at 6 by design",
    load: (c) => (c.dispatcherRunsPerInstant > 0 ? 6 : 0),
  },
  {
    limit: "Workers: subrequests per dispatcher invocation",
    value: 10_000,
    unit: "subreqs",
    kind: "raise",
    how: "a dispatcher's alarm: the busy shard's runs of one instant, and one claim",
    load: (c) => c.dispatcherRunsPerInstant + 2,
  },
  {
    limit: "D1: storage per database",
    value: 10 * GB,
    unit: "B",
    kind: "hard",
    how: "job definitions per job database; run history is not in D1",
    load: (c) => c.jobDatabaseBytes,
  },
  {
    limit: "D1: storage of the main database (dead letters)",
    value: 10 * GB,
    unit: "B",
    kind: "hard",
    how: "tenants, keys, alerts and 30 days of dead letters at the assumed dead-letter share of runs",
    load: (c) => c.deadLetterBytes,
  },
  {
    limit: "D1: queries per Worker invocation",
    value: 1_000,
    unit: "queries",
    kind: "hard",
    how: "the maintenance pass: up to 200 job lookups for open missed-run alerts, plus ~20",
    load: () => 220,
  },
  {
    limit: "Workers: subrequests per invocation",
    value: 10_000,
    unit: "subreqs",
    kind: "raise",
    how: "the console overview of a tenant on every shard: stats (shared with lateness) and failures (failed and dead-lettered in one read), each one request per shard the tenant's index names",
    load: (c) => c.overviewSubrequests,
  },
  {
    limit: "Dispatch window per shard (edgecron's bound)",
    value: WINDOW_CAP_PER_SHARD,
    unit: "runs",
    kind: "raise",
    how: "the busy shard's runs from hand-off (ahead of the instant) to their reported outcome",
    load: (c) => c.windowNeeded,
  },
  {
    limit: "Workers: simultaneous outgoing connections",
    value: 6,
    unit: "conns",
    kind: "hard",
    how: "the consumer's target calls, pooled at 6 by design",
    load: () => 6,
  },
  {
    limit: "Analytics Engine: data points per invocation",
    value: 250,
    unit: "points",
    kind: "hard",
    how: "one dispatch and one outcome point per run of a consumer or dispatcher invocation",
    load: (c) => 2 * Math.max(c.runsPerInvocation, c.dispatcherRunsPerInstant),
  },
];

function statusOf(row, load) {
  if (load <= row.value) return "ok";
  return row.kind === "raise" ? "raise" : "over";
}

/** The table: per row, the load, headroom (limit / load) and status at each scenario. */
export function limitsTable(plan, costs, load, assumptions) {
  const scenarios = {
    average: scenarioContext(plan, costs, load, assumptions, "average", load.avg),
    peak: scenarioContext(plan, costs, load, assumptions, "peak", load.peak),
    burst: scenarioContext(plan, costs, load, assumptions, "burst", load.burst),
  };
  const p99ByScenario = plan.lane.p99_ms;
  const rows = ROWS.map((row) => {
    const at = {};
    let status = "ok";
    for (const [name, context] of Object.entries(scenarios)) {
      const value = row.load(context);
      const rowStatus = statusOf(row, value);
      if (rowStatus === "over" || (rowStatus === "raise" && status === "ok")) status = rowStatus;
      at[name] = {
        load: value,
        headroom: value > 0 ? row.value / value : null,
        status: rowStatus,
      };
    }
    const worst = Math.max(...Object.values(at).map((cell) => cell.load));
    return {
      limit: row.limit,
      value: row.value,
      unit: row.unit,
      kind: row.kind,
      how: row.how,
      at,
      status,
      raise:
        status === "raise"
          ? `our load ${Math.ceil(worst).toLocaleString("en-US")} ${row.unit} over ${row.value.toLocaleString("en-US")} (${row.how})`
          : null,
    };
  });
  const p99 = { ...p99ByScenario };
  return {
    scenarios: Object.keys(scenarios),
    rates: { average: load.avg, peak: load.peak, burst: load.burst },
    rows,
    p99_ms: p99,
  };
}

function human(value, unit, f) {
  if (unit === "B") {
    if (value >= GB) return `${f(value / GB, 2)} GiB`;
    if (value >= KB) return `${f(value / KB, 1)} KiB`;
    return `${f(value)} B`;
  }
  return `${f(value, value < 10 ? 1 : 0)} ${unit}`;
}

/** Prints the table: one line per limit, load and headroom at the three scenarios. */
export function printLimitsTable(table, f) {
  const rate = (name) => `${name} ${f(table.rates[name])}/s`;
  console.log(
    `published limits vs our load (${table.scenarios.map(rate).join(", ")}); headroom = limit / load`,
  );
  const header = [
    "limit",
    "value",
    "kind",
    ...table.scenarios.map((name) => `${name}: load (headroom)`),
    "status",
  ];
  const lines = table.rows.map((row) => [
    row.limit,
    human(row.value, row.unit, f),
    row.kind === "hard" ? "hard" : "raisable",
    ...table.scenarios.map((name) => {
      const cell = row.at[name];
      const headroom = cell.headroom === null ? "-" : `${f(cell.headroom, cell.headroom < 10 ? 1 : 0)}x`;
      return `${human(cell.load, row.unit, f)} (${headroom})`;
    }),
    row.status === "ok" ? "ok" : row.status === "raise" ? "RAISE" : "OVER",
  ]);
  lines.push([
    "predicted p99 lateness",
    "-",
    "-",
    ...table.scenarios.map((name) => `${f(table.p99_ms[name])} ms`),
    "",
  ]);
  const widths = header.map((_, i) => Math.max(header[i].length, ...lines.map((line) => line[i].length)));
  const pad = (line) => line.map((cell, i) => cell.padEnd(widths[i])).join(" | ");
  console.log(pad(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const line of lines) console.log(pad(line));
}
