// npm run bench [-- --quick] [-- --scenario burst[,steady...]] [-- --no-build]
// npm run bench -- --scenario flood [--jobs N --seconds S --hang-calls N]: optional, not in the default set; its
// results are added to the existing latest.json. Likewise --scenario flowcontrol [--jobs N] and
// --scenario deletes [--jobs N].
//
// Builds the production bundle (wrangler deploy --dry-run), runs it under Miniflare started from
// this process (wrangler dev proxies every outbound fetch through its own Node process and manages
// only ~550 target calls/s: docs/PERFORMANCE.md), forks a keep-alive HTTP target, runs the
// scenarios and writes bench/results/<timestamp>.json, latest.json, latest.md and the lateness SVG.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { deletes } from "./lib/deletes-scenario.mjs";
import { flood } from "./lib/flood.mjs";
import { flowcontrol } from "./lib/flow-control-scenario.mjs";
import { latenessSvg, markdownSummary } from "./lib/report.mjs";
import {
  ADMIN_TOKEN,
  buildBundle,
  startScheduler,
  startTarget,
  workerdMemory,
  wranglerVars,
} from "./lib/runtime.mjs";
import * as scenarioModule from "./lib/scenarios.mjs";

const scenarios = { ...scenarioModule, flood, flowcontrol, deletes };

const ORDER = ["ceiling", "create", "burst", "steady", "retry", "scale"];
/** Run only when named with --scenario: each takes minutes at full size. */
const OPTIONAL = ["flood", "flowcontrol", "deletes"];
const ALL = [...ORDER, ...OPTIONAL];
const SIZES = {
  full: {
    ceiling: { msgs: 20_000 },
    create: { jobs: 50_000 },
    burst: { jobs: 20_000 },
    steady: { jobs: 10_000, seconds: 60 },
    retry: { jobs: 2_000, seconds: 40 },
    scale: { jobs: 1_000_000 },
    flood: { jobs: 1_500, seconds: 60, hang_calls: 300 },
    flowcontrol: { jobs: 5_000, parallelism: 20, rate: 200, hold_ms: 100 },
    deletes: { jobs: 1_500 },
  },
  quick: {
    ceiling: { msgs: 5_000 },
    create: { jobs: 5_000 },
    burst: { jobs: 2_000 },
    steady: { jobs: 1_000, seconds: 30 },
    retry: { jobs: 500, seconds: 30 },
    scale: { jobs: 20_000 },
    flood: { jobs: 200, seconds: 10, hang_calls: 30 },
    flowcontrol: { jobs: 500, parallelism: 20, rate: 200, hold_ms: 100 },
    deletes: { jobs: 300 },
  },
};

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    scenario: { type: "string", multiple: true },
    "no-build": { type: "boolean", default: false },
    concurrency: { type: "string" },
    jobs: { type: "string" },
    seconds: { type: "string" },
    "hang-calls": { type: "string" },
    verbose: { type: "boolean", default: false },
  },
});
const mode = values.quick ? "quick" : "full";
const selected = values.scenario ? values.scenario.flatMap((s) => s.split(",")) : ORDER;
for (const name of selected)
  if (!ALL.includes(name)) throw new Error(`unknown scenario ${name}; one of ${ALL.join(", ")}`);

const resultsDir = join(import.meta.dirname, "results");
mkdirSync(resultsDir, { recursive: true });
const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/[:.]/g, "-");

console.log(`edgecron bench (${mode}): ${selected.join(", ")}`);
if (!values["no-build"]) {
  const t = Date.now();
  buildBundle();
  console.log(`bundle built in ${Date.now() - t} ms`);
}
const target = await startTarget();
const targetConcurrency = 32;
// BENCH_LEAD_MS overrides DISPATCH_LEAD_MS (how far ahead runs are sent), to measure the window.
const leadMs = Number(process.env.BENCH_LEAD_MS ?? wranglerVars().DISPATCH_LEAD_MS ?? 0);
// Cloudflare's 6 connections per invocation and per Durable Object, which local runtimes do not
// enforce, are emulated so the figures mean what they would there; BENCH_UNCAPPED=1 measures
// without (the local runtime's own ceiling), for the comparison in docs/BENCHMARKS.md.
const connectionCap = process.env.BENCH_UNCAPPED === "1" ? "false" : "true";
const runtime = await startScheduler({
  varsOverride: {
    DISPATCH_LEAD_MS: String(leadMs),
    EMULATE_CONNECTION_CAP: connectionCap,
    // BENCH_LANE=pool measures the dispatcher pool lane (src/queue/dispatch-lane.ts) instead of the queues.
    DISPATCH_LANE: process.env.BENCH_LANE === "pool" ? "pool" : "queue",
  },
  scriptPath: join(import.meta.dirname, "..", "dist", "index.js"),
  targetConcurrency,
  verbose: values.verbose,
});
console.log(
  `Miniflare at ${runtime.url}; target at ${target.url}; workerd ${JSON.stringify(workerdMemory())}`,
);

const results = {
  meta: {
    started_at: startedAt.toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    mode,
    // "true": Cloudflare's 6 connections per invocation and per Durable Object emulated
    emulate_connection_cap: connectionCap,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    runtime:
      "Miniflare (workerd) from Node on the wrangler deploy --dry-run bundle; target: keep-alive Node HTTP server in a child process",
    // Other processes on the machine compete for its 2 cores: the load average says how much.
    load_average_at_start: loadavg().map((v) => Math.round(v * 100) / 100),
    sizes: Object.fromEntries(selected.map((name) => [name, SIZES[mode][name]])),
    // Runs due within this many ms are created and sent to the queue ahead of their instant.
    dispatch_lead_ms: leadMs,
  },
  notes: [],
};
const ctx = { runtime, target, targetConcurrency, results, api: null };
let exitCode = 0;
try {
  if (selected.some((name) => name !== "ceiling"))
    ctx.api = await scenarios.apiClient(runtime.url, ADMIN_TOKEN);
  for (const name of ALL.filter((n) => selected.includes(n))) {
    const size = SIZES[mode][name];
    if (values.jobs && name !== "ceiling") size.jobs = Number(values.jobs);
    if (values.seconds && size.seconds) size.seconds = Number(values.seconds);
    if (values["hang-calls"] !== undefined && "hang_calls" in size)
      size.hang_calls = Number(values["hang-calls"]);
    console.log(`\n== ${name} ${JSON.stringify(size)}`);
    const t = Date.now();
    try {
      results[name] = await scenarios[name](ctx, size);
      const { _lateness, ...shown } = results[name];
      console.log(JSON.stringify(shown, null, 1));
    } catch (error) {
      exitCode = 1;
      results[name] = { error: String(error?.stack ?? error) };
      console.error(
        `${name} failed: ${error?.stack ?? error}; workerd now: ${JSON.stringify(workerdMemory())}`,
      );
    }
    console.log(`(${name}: ${Math.round((Date.now() - t) / 1000)} s)`);
  }
} finally {
  await runtime.dispose().catch(() => {});
  target.stop();
}

const series = ["burst", "steady", "retry", "scale"]
  .filter((name) => results[name]?._lateness)
  .map((name) => ({ name: name === "scale" ? "scale probes" : name, values: results[name]._lateness }));
for (const name of ALL) if (results[name]) delete results[name]._lateness;
results.meta.load_average_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
annotate(results);

// A run of optional scenarios only (flood) adds its results to the latest full run's file.
const json = JSON.stringify(
  selected.every((name) => OPTIONAL.includes(name)) ? withLatest(results) : results,
  null,
  2,
);
writeFileSync(join(resultsDir, `${stamp}.json`), json);
writeFileSync(join(resultsDir, "latest.json"), json);
if (series.length > 0) {
  const svg = latenessSvg(
    series,
    `edgecron lateness at target receipt — ${mode} — ${startedAt.toISOString()}`,
  );
  writeFileSync(join(resultsDir, `${stamp}-lateness.svg`), svg);
  writeFileSync(join(resultsDir, "latest-lateness.svg"), svg);
}
const md = markdownSummary(results, series.length > 0 ? "latest-lateness.svg" : null);
writeFileSync(join(resultsDir, "latest.md"), md);
console.log(
  `\n${md}\nwrote bench/results/latest.json, latest.md${series.length > 0 ? ", latest-lateness.svg" : ""}`,
);
process.exit(exitCode);

/** The previous latest.json with this run's scenarios (and their meta) put in; this run alone if none. */
function withLatest(run) {
  let previous;
  try {
    previous = JSON.parse(readFileSync(join(resultsDir, "latest.json"), "utf8"));
  } catch {
    return run;
  }
  const added = Object.fromEntries(selected.map((name) => [name, run[name]]));
  const meta = { ...previous.meta, [`${selected.join("_")}_run`]: run.meta };
  return { ...previous, ...added, meta, notes: [...(previous.notes ?? []), ...run.notes] };
}

/** The targets, checked against this run. */
function annotate(r) {
  const check = (ok, text) => r.notes.push(`${ok ? "met" : "NOT met"}: ${text}`);
  const ceilingRate = r.ceiling?.fetch_msgs_per_s;
  if (r.burst?.drain_jobs_per_s) {
    check(
      r.burst.drain_jobs_per_s >= 3_000,
      `burst drain ≥ 3,000 jobs/s (BullMQ with HTTP): ${r.burst.drain_jobs_per_s}`,
    );
    if (ceilingRate)
      check(
        r.burst.drain_jobs_per_s >= 0.8 * ceilingRate,
        `burst drain ≥ 80 % of the fetch ceiling (${ceilingRate}): ${r.burst.fraction_of_fetch_ceiling_pct} %`,
      );
    if (r.burst.lateness_ms?.p99 !== null)
      check(
        r.burst.lateness_ms.p99 <= 6_500,
        `burst p99 ≤ 6.5 s (BullMQ with HTTP): ${r.burst.lateness_ms.p99} ms`,
      );
  }
  if (r.steady?.lateness_ms) {
    check(
      r.steady.lateness_ms.p99 < 100 && r.steady.missed === 0 && r.steady.duplicates === 0,
      `steady p99 < 100 ms, 0 missed, 0 duplicates: p99 ${r.steady.lateness_ms.p99} ms, missed ${r.steady.missed}, duplicates ${r.steady.duplicates}`,
    );
    if (ceilingRate) {
      // What the bare fetch ceiling needs to make one second's calls, and 1.5 times that.
      const instantMs = Math.round((1000 * r.steady.triggers_per_s) / ceilingRate);
      r.steady.ceiling_ms_per_instant = instantMs;
      check(
        r.steady.lateness_ms.p99 <= 1.5 * instantMs,
        `steady p99 ≤ 1.5 × the fetch ceiling's time for one second's ${r.steady.triggers_per_s} calls (${instantMs} ms): ${r.steady.lateness_ms.p99} ms`,
      );
    }
  }
  for (const name of ["burst", "steady"]) {
    const perRun = r[name]?.workerd_cpu_ms_per_run;
    if (perRun !== undefined) check(perRun <= 0.3, `${name}: workerd CPU ≤ 0.30 ms per run: ${perRun} ms`);
  }
  if (r.create?.jobs_per_s)
    check(r.create.jobs_per_s >= 10_000, `create ≥ 10,000 jobs/s: ${r.create.jobs_per_s}`);
  if (r.flowcontrol?.limits)
    check(
      r.flowcontrol.within_limits && r.flowcontrol.missed === 0 && r.flowcontrol.duplicates === 0,
      `flowcontrol within its limits, 0 missed, 0 duplicates: parallelism ${r.flowcontrol.max_parallelism_observed}/${r.flowcontrol.limits.parallelism}, starts in a second ${r.flowcontrol.max_starts_in_any_second}/${r.flowcontrol.limits.rate_per_s}, missed ${r.flowcontrol.missed}, duplicates ${r.flowcontrol.duplicates}`,
    );
  if (r.scale?.rss_mb && r.scale.jobs >= 1_000_000)
    check(r.scale.peak_rss_mb < 1024, `1 M active jobs under 1 GiB: peak RSS ${r.scale.peak_rss_mb} MB`);
}
