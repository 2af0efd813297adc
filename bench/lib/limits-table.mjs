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
    how: "6 target calls per invocation at the target latency",
    load: (c) => c.concurrentInvocations / c.queues,
  },
  {
    limit: "Queues: queues per account",
    value: 10_000,
    unit: "queues",
    kind: "raise",
    how: "dispatch queues plus one shared dead-letter queue",
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
    how: "one claim and one outcome per message, plus every tenant-wide page or stats read",
    load: (c) => (2 * c.messagesPerS) / c.shards + c.fanoutReadsPerS,
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
    how: "a pass's sendBatch calls, sent together",
    load: (c) => Math.ceil(c.messagesPerShardTick / 100),
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
    how: "the console overview: stats, lateness, failed and dead-lettered runs each ask every shard; a Worker setting, limits.subrequests, up to 10 M",
    load: (c) => 4 * c.shards + 10,
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
    how: "one dispatch and one outcome point per run of a consumer invocation",
    load: (c) => 2 * c.runsPerInvocation,
  },
];

/** The quantities every row reads, for one arrival rate. */
function scenarioContext(plan, costs, load, assumptions, rate, p99Ms, backlogRuns) {
  const shards = plan.shards.recommended;
  const queues = plan.queues.recommended;
  const runsPerShardS = rate / shards;
  const bundle = Math.min(load.bundleSize, Math.max(1, Math.floor(runsPerShardS)));
  const latencyS = load.targetLatencyMs / 1000;
  const consumerBatchMessages = Math.max(1, Math.min(100, Math.floor(load.batchSize / bundle)));
  const runsPerInvocation = consumerBatchMessages * bundle;
  return {
    rate,
    p99Ms,
    shards,
    queues,
    bundle,
    runsPerShardS,
    messagesPerS: rate / bundle,
    messagesPerShardTick: Math.ceil(runsPerShardS / bundle),
    runBytes: assumptions.runBytesInMessage,
    messageBytes: bundle * assumptions.runBytesInMessage,
    consumerBatchMessages,
    runsPerInvocation,
    concurrentInvocations: Math.ceil(rate / (6 / latencyS)),
    batchSeconds: Math.ceil(runsPerInvocation / 6) * latencyS,
    backlogRuns,
    shardCpuMs: costs.shardCpuMsPerRun ?? 0.5,
    shardBytes: plan.history.shard_bytes,
    fanoutReadsPerS: assumptions.apiFanoutReadsPerS,
    jobDatabaseBytes: plan.d1.bytes_per_job_database,
    // dead letters accumulate at the average rate whatever the scenario
    deadLetterBytes:
      load.avg * assumptions.deadLetterShare * 86_400 * load.historyDays * assumptions.deadLetterBytes,
  };
}

function statusOf(row, load) {
  if (load <= row.value) return "ok";
  return row.kind === "raise" ? "raise" : "over";
}

/** The table: per row, the load, headroom (limit / load) and status at each scenario. */
export function limitsTable(plan, costs, load, assumptions) {
  const lateness = plan.lateness;
  const scenarios = {
    average: scenarioContext(plan, costs, load, assumptions, load.avg, lateness.p99_average_ms, load.avg),
    peak: scenarioContext(plan, costs, load, assumptions, load.peak, lateness.p99_peak_ms, load.peak),
    burst: scenarioContext(
      plan,
      costs,
      load,
      assumptions,
      load.burst,
      lateness.burst.p99,
      Math.max(load.burst, (load.burst - lateness.capacity_runs_per_s) * load.burstSeconds),
    ),
  };
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
  const p99 = Object.fromEntries(Object.entries(scenarios).map(([name, c]) => [name, c.p99Ms]));
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
