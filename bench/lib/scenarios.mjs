// The bench scenarios. Each takes the context (API client, target, runtime) and its size, and
// returns the JSON that goes into latest.json under its name.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolateProfiler } from "./profile.mjs";
import { percentiles } from "./report.mjs";
import { measurePrune, readMeter, rowsReport, settleRowsWindow, startRowsWindow } from "./rows.mjs";
import { cpuSeconds, diskBytes, workerdMemory } from "./runtime.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const BATCH = 1_000;

/** API client for one tenant (created with the admin token). */
export async function apiClient(baseUrl, adminToken) {
  const call = async (method, path, body, token, extraHeaders = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  const tenant = await call("POST", "/v1/tenants", { name: "bench" }, adminToken);
  const key = await call("POST", "/v1/api-keys", { tenant_id: tenant.id, name: "bench" }, adminToken);
  // The bench measures the engine, not the default quotas (2,000 creates/s, 100,000 active jobs):
  // the admin lifts them for its tenant, as an operator would for a tenant this large.
  await call(
    "PUT",
    `/v1/tenants/${tenant.id}/limits`,
    { active_jobs: null, creates_per_second: null },
    adminToken,
  );
  return {
    tenantId: tenant.id,
    call: (method, path, body, headers) => call(method, path, body, key.key, headers),
  };
}

/**
 * Creates `total` jobs through POST /v1/jobs/batch, `inFlight` requests at a time, 1,000 per request.
 * `jobAt(i)` builds job i. Returns the ids and the wall time.
 */
export async function createJobs(api, total, jobAt, { inFlight = 4, onProgress } = {}) {
  const runId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const ids = new Array(total);
  let next = 0;
  let failed = 0;
  const requestErrors = [];
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const from = next;
      const to = Math.min(total, from + BATCH);
      next = to;
      const jobs = [];
      for (let i = from; i < to; i++) jobs.push(jobAt(i));
      let result;
      // One Idempotency-Key per chunk makes a retry after a lost response safe.
      const headers = { "idempotency-key": `bench-${runId}-${from}` };
      try {
        result = await api
          .call("POST", "/v1/jobs/batch", { jobs }, headers)
          .catch(() => api.call("POST", "/v1/jobs/batch", { jobs }, headers));
      } catch (error) {
        // Failed twice: counted as failed, the run goes on.
        failed += jobs.length;
        requestErrors.push(`${String(error)}${error?.cause ? ` (cause: ${String(error.cause)})` : ""}`);
        console.error(`  batch create failed: ${requestErrors.at(-1)}`);
        continue;
      }
      failed += result.failed;
      if (result.failed > 0 && failed === result.failed) {
        const bad = result.results.find((r) => r.status !== 201);
        console.error("batch item failed:", JSON.stringify(bad).slice(0, 600));
      }
      for (const r of result.results) if (r.job) ids[from + r.index] = r.job.id;
      onProgress?.(to);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ids, seconds, failed, requestErrors };
}

/** Waits until the target saw `expected` calls for `scenario`, or progress stalls for `stallMs`. */
async function waitForCalls(
  ctx,
  scenario,
  expected,
  { stallMs = 30_000, deadlineMs = 900_000, fromMs = Date.now() } = {},
) {
  const deadline = Date.now() + deadlineMs;
  let last = -1;
  let lastChangeMs = Math.max(Date.now(), fromMs);
  for (;;) {
    const { calls } = await ctx.target.ask({ type: "count", scenario });
    if (calls >= expected) return calls;
    if (calls !== last) {
      last = calls;
      lastChangeMs = Date.now();
    } else if (Date.now() - lastChangeMs > stallMs || Date.now() > deadline) {
      console.error(`  ${scenario}: no progress for ${stallMs} ms at ${calls}/${expected} calls; giving up`);
      return calls;
    }
    await sleep(100);
  }
}

/** CPU seconds of workerd, the target and this process over a scenario: who was busy. */
function cpuMeter(ctx) {
  const pids = { workerd: workerdMemory().map((w) => w.pid), target: [ctx.target.pid], bench: [process.pid] };
  const read = () =>
    Object.fromEntries(
      Object.entries(pids).map(([name, list]) => [
        name,
        list.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0),
      ]),
    );
  const before = read();
  const t0 = performance.now();
  return () => {
    const after = read();
    const wallS = (performance.now() - t0) / 1000;
    return Object.fromEntries(
      Object.entries(after).flatMap(([name, s]) => [
        [`${name}_cpu_pct`, Math.round(((s - before[name]) / wallS) * 100)],
        [`${name}_cpu_s`, round(s - before[name], 2)],
      ]),
    );
  };
}

/** Raw queue ceiling, and the fetch ceiling (same target, same pool shape as the consumer). */
export async function ceiling(ctx, size) {
  let { msgs } = size;
  const runOne = async (kind) => {
    await ctx.runtime.benchWorker.fetch("http://bench/reset");
    await ctx.target.ask({ type: "reset", scenario: "ceiling" });
    const t0 = performance.now();
    const sender = ctx.runtime.benchWorker.fetch(
      `http://bench/send?n=${msgs}&kind=${kind}&cap=8000&target=${encodeURIComponent(`${ctx.target.url}/ceiling`)}`,
    );
    for (;;) {
      const { consumed } = await (await ctx.runtime.benchWorker.fetch("http://bench/count")).json();
      if (consumed >= msgs) break;
      await sleep(20);
    }
    await sender;
    return Math.round(msgs / ((performance.now() - t0) / 1000));
  };
  // Warm-up (JIT, connections): the first thousands of calls run at a fraction of the rate.
  const timed = msgs;
  msgs = Math.min(2_000, timed);
  await runOne("noop");
  await runOne("fetch");
  msgs = timed;
  const meter = cpuMeter(ctx);
  const noop = await runOne("noop");
  const noopCpu = meter();
  const meter2 = cpuMeter(ctx);
  const withFetch = await runOne("fetch");
  const { calls } = await ctx.target.ask({ type: "count", scenario: "ceiling" });
  return {
    msgs,
    msgs_per_s: noop,
    fetch_msgs_per_s: withFetch,
    fetch_target_calls: calls,
    fetch_concurrency: ctx.targetConcurrency,
    cpu_noop: noopCpu,
    cpu_fetch: meter2(),
  };
}

/** POST /v1/jobs/batch throughput: one-shot jobs a day ahead (they do not fire during the bench). */
export async function create(ctx, { jobs }) {
  const atIso = new Date(Date.now() + 86_400_000).toISOString();
  await startRowsWindow(ctx);
  const meter = cpuMeter(ctx);
  const stopProfile = await profileIf("create");
  const result = await createJobs(ctx.api, jobs, (i) => ({
    name: `create-${i}`,
    schedule: { type: "once", at: atIso },
    target: { type: "http", url: `${ctx.target.url}/create/${i}`, method: "POST" },
  }));
  const profile = await stopProfile();
  const rows = rowsReport(jobs, await settleRowsWindow(ctx), null);
  return {
    jobs,
    failed: result.failed,
    seconds: round(result.seconds, 2),
    rows_written_per_job: rows.rows_written_per_run,
    rows: { ...rows, runs: undefined, jobs },
    jobs_per_s: Math.round(jobs / result.seconds),
    batch_size: BATCH,
    requests_in_flight: 4,
    cpu: meter(),
    ...(profile ? { profile } : {}),
  };
}

/** `jobs` one-shot jobs due at the same instant, created ahead with the batch API. */
export async function burst(ctx, { jobs }) {
  // Creation first, then the whole dispatch lead window before the instant (runs go ahead in it).
  const leadMs = Math.max(6_000, jobs * 0.4 + 4_000) + (ctx.results.meta.dispatch_lead_ms ?? 0);
  const atMs = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  const atIso = new Date(atMs).toISOString();
  const created = await createJobs(ctx.api, jobs, (i) => ({
    name: `burst-${i}`,
    schedule: { type: "once", at: atIso },
    target: { type: "http", url: `${ctx.target.url}/burst/${i}`, method: "POST", body: { i } },
  }));
  const createdBeforeMs = atMs - Date.now();
  // Rows written from here on are the runs' (the creates' are the create scenario's figure).
  await startRowsWindow(ctx);
  // The lead window before the instant: the shard creates and sends the runs then.
  const aheadMeter = cpuMeter(ctx);
  await sleep(Math.max(0, atMs - Date.now()));
  const aheadCpu = aheadMeter();
  const meter = cpuMeter(ctx);
  const stopProfile = await profileIf("burst");
  await waitForCalls(ctx, "burst", jobs, { fromMs: atMs });
  const profile = await stopProfile();
  const cpu = meter();
  await sleep(2_000); // late duplicates, if any
  const stats = await ctx.target.ask({ type: "stats", scenario: "burst", withLateness: true });
  const drainS = (stats.lastMs - atMs) / 1000;
  const rows = rowsReport(jobs, await settleRowsWindow(ctx), await measurePrune(ctx));
  return {
    jobs,
    rows_written_per_run: rows.rows_written_per_run,
    rows,
    drain_jobs_per_s: Math.round(stats.uniqueKeys / drainS),
    drain_seconds: round(drainS, 2),
    // first receipt to last: the rate once the pipeline is full
    sustained_jobs_per_s: Math.round(stats.uniqueKeys / ((stats.lastMs - stats.firstMs) / 1000 || 1)),
    first_receipt_ms: stats.firstMs - atMs,
    lateness_ms: percentiles(stats.lateness),
    missed: jobs - stats.uniqueKeys,
    duplicates: stats.duplicates,
    create_failed: created.failed,
    create_seconds: round(created.seconds, 2),
    created_ms_before_instant: createdBeforeMs,
    fraction_of_fetch_ceiling_pct: ctx.results.ceiling?.fetch_msgs_per_s
      ? round((100 * stats.uniqueKeys) / drainS / ctx.results.ceiling.fetch_msgs_per_s, 1)
      : null,
    cpu,
    // From the instant to the last call; runs sent ahead were created and sent before it (their
    // CPU is in ahead_cpu).
    workerd_cpu_ms_per_run: round((cpu.workerd_cpu_s * 1000) / jobs, 3),
    ahead_cpu: aheadCpu,
    ...(profile ? { profile } : {}),
    _lateness: stats.lateness,
  };
}

/**
 * `jobs` cron jobs with a seconds field, each firing every 10 s; job i fires at second i mod 10
 * of each 10 s, so the load is an even jobs/10 triggers per second. Runs for `seconds`.
 */
export function steady(ctx, { jobs, seconds }) {
  return cronLoad(ctx, { jobs, seconds, scenario: "steady" });
}

/**
 * The steady load against a target that answers 500 to each run's first call and 200 to its
 * second (retried 1 s later): what a run that fails once and then succeeds costs.
 */
export function retry(ctx, { jobs, seconds }) {
  return cronLoad(ctx, { jobs, seconds, scenario: "retry", failFirst: true });
}

/** Rows are counted over the middle of the load, away from its first and last instants. */
const ROWS_WINDOW_EDGE_MS = 10_000;

async function cronLoad(ctx, { jobs, seconds, scenario, failFirst = false }) {
  const leadMs = Math.max(8_000, jobs * 0.4 + 5_000) + (ctx.results.meta.dispatch_lead_ms ?? 0);
  const startMs = Math.ceil((Date.now() + leadMs) / 10_000) * 10_000;
  const endMs = startMs + seconds * 1000;
  const query = failFirst ? "?fail_first=1" : "";
  const created = await createJobs(ctx.api, jobs, (i) => ({
    name: `${scenario}-${i}`,
    schedule: { type: "cron", expr: `${i % 10}/10 * * * * *`, timezone: "UTC" },
    target: { type: "http", url: `${ctx.target.url}/${scenario}/${i}${query}`, method: "POST", body: { i } },
    start_at: new Date(startMs).toISOString(),
    end_at: new Date(endMs - 500).toISOString(),
    ...(failFirst
      ? { retry: { max_attempts: 3, backoff: { initial: "1s", max: "1s", multiplier: 1, jitter: "none" } } }
      : {}),
  }));
  const createdBeforeMs = startMs - Date.now();
  const expected = (jobs * seconds) / 10;
  await sleep(Math.max(0, startMs - Date.now()));
  const meter = cpuMeter(ctx);
  const stopProfile = await profileIf(scenario);
  // The rows window: whole seconds in the middle of the load, opened and closed at the same point
  // of a second, so the pipeline holds as much at both ends; its runs are the calls it saw.
  const windowStartMs = startMs + ROWS_WINDOW_EDGE_MS + 500;
  const windowEndMs = endMs - ROWS_WINDOW_EDGE_MS + 500;
  let rowsWindow = null;
  if (windowEndMs > windowStartMs + 5_000) {
    await sleep(Math.max(0, windowStartMs - Date.now()));
    await startRowsWindow(ctx);
    const callsBefore = (await ctx.target.ask({ type: "count", scenario })).calls;
    await sleep(Math.max(0, windowEndMs - Date.now()));
    const window = await readMeter(ctx, { reset: true });
    const calls = (await ctx.target.ask({ type: "count", scenario })).calls - callsBefore;
    rowsWindow = { window, runs: failFirst ? calls / 2 : calls };
  }
  await sleep(Math.max(0, endMs - Date.now()));
  const cpu = meter();
  const profile = await stopProfile();
  await waitForCalls(ctx, scenario, failFirst ? 2 * expected : expected, { stallMs: 10_000 });
  await sleep(2_000);
  const stats = await ctx.target.ask({ type: "stats", scenario, withLateness: true });
  if (process.env.BENCH_DUMP) writeFileSync(process.env.BENCH_DUMP, JSON.stringify(stats.lateness));
  let rows = null;
  if (rowsWindow !== null) {
    // The prune of every run the load made, per run, added to the window's rows per run.
    await settleRowsWindow(ctx);
    const prune = await measurePrune(ctx);
    const report = rowsReport(rowsWindow.runs, rowsWindow.window, null);
    const prunePerRun = prune.totalBilledRows / expected;
    rows = {
      ...report,
      rows_written_per_run: round(report.rows_written_per_run + prunePerRun, 3),
      later_prune: {
        by_store: prune.byStore,
        billed_rows: prune.totalBilledRows,
        per_run: round(prunePerRun, 3),
      },
      window_ms: windowEndMs - windowStartMs,
    };
  }
  return {
    jobs,
    seconds,
    triggers_per_s: jobs / 10,
    expected,
    received: stats.calls,
    rows_written_per_run: rows?.rows_written_per_run ?? null,
    rows,
    lateness_ms: percentiles(stats.lateness),
    missed: expected - stats.uniqueKeys,
    duplicates: failFirst ? stats.duplicates - expected : stats.duplicates,
    create_failed: created.failed,
    created_ms_before_start: createdBeforeMs,
    cpu,
    workerd_cpu_ms_per_run: round((cpu.workerd_cpu_s * 1000) / expected, 3),
    ...(profile ? { profile } : {}),
    _lateness: stats.lateness,
  };
}

/**
 * `jobs` active jobs (daily intervals) in one instance: creation time, workerd RSS, and the
 * lateness of one-shot probe jobs (due 2 s after their creation) fired meanwhile and after.
 */
export async function scale(ctx, { jobs }) {
  const rssBeforeMb = Math.round(workerdMemory().reduce((sum, w) => sum + w.rssMb, 0));
  const probeLateness = [];
  let probeIndex = 0;
  let creating = true;
  const probe = async () => {
    const k = probeIndex++;
    const job = {
      name: `probe-${k}`,
      schedule: { type: "once", at: new Date(Date.now() + 2_000).toISOString() },
      target: { type: "http", url: `${ctx.target.url}/probe/${k}`, method: "POST" },
    };
    // An idle keep-alive connection may be closed by workerd just as it is reused ("other side
    // closed"): the Idempotency-Key makes one retry safe.
    const headers = { "idempotency-key": `probe-${k}` };
    await ctx.api
      .call("POST", "/v1/jobs", job, headers)
      .catch(() => ctx.api.call("POST", "/v1/jobs", job, headers));
  };
  const prober = (async () => {
    while (creating) {
      await probe().catch((error) =>
        console.error("probe failed:", String(error), String(error?.cause ?? "")),
      );
      await sleep(2_000);
    }
  })();
  let lastLog = 0;
  const startAtIso = new Date(Date.now() + 86_400_000).toISOString();
  const meter = cpuMeter(ctx);
  const created = await createJobs(
    ctx.api,
    jobs,
    (i) => ({
      name: `scale-${i}`,
      schedule: { type: "interval", every: "1d" },
      // An interval fires at its anchor (the job's start) first: start tomorrow, so these jobs
      // are active but idle during the bench.
      start_at: startAtIso,
      target: { type: "http", url: `${ctx.target.url}/scale/${i}`, method: "POST" },
    }),
    {
      onProgress: (done) => {
        if (done - lastLog >= 100_000) {
          lastLog = done;
          const rss = workerdMemory().reduce((sum, w) => sum + w.rssMb, 0);
          console.log(`  scale: ${done} jobs created, workerd RSS ${Math.round(rss)} MB`);
        }
      },
    },
  );
  const cpu = meter();
  creating = false;
  await prober;
  // A few probes with all jobs in place, the instance otherwise idle.
  for (let i = 0; i < 3; i++) {
    await probe();
    await sleep(2_000);
  }
  await waitForCalls(ctx, "probe", probeIndex, { stallMs: 15_000 });
  const stats = await ctx.target.ask({ type: "stats", scenario: "probe", withLateness: true });
  probeLateness.push(...stats.lateness);
  const memory = workerdMemory();
  const doBytes = diskBytes(join(ctx.runtime.persistDir, "do"));
  const d1Bytes = diskBytes(join(ctx.runtime.persistDir, "d1"));
  return {
    do_sqlite_bytes: doBytes,
    d1_sqlite_bytes: d1Bytes,
    // every job created so far in this run (create + burst + steady + scale + probes)
    jobs_in_instance:
      (ctx.results.create?.jobs ?? 0) +
      (ctx.results.burst?.jobs ?? 0) +
      (ctx.results.steady?.jobs ?? 0) +
      jobs +
      probeIndex,
    jobs,
    create_failed: created.failed,
    create_request_errors: created.requestErrors.slice(0, 5),
    create_seconds: round(created.seconds, 1),
    jobs_per_s: Math.round(jobs / created.seconds),
    rss_before_mb: rssBeforeMb,
    rss_mb: Math.round(memory.reduce((sum, w) => sum + w.rssMb, 0)),
    peak_rss_mb: Math.round(memory.reduce((sum, w) => sum + w.peakRssMb, 0)),
    rss_anon_mb: Math.round(memory.reduce((sum, w) => sum + w.anonMb, 0)),
    rss_file_mb: Math.round(memory.reduce((sum, w) => sum + w.fileMb, 0)),
    workerd_processes: memory.length,
    probes: probeIndex,
    probes_received: stats.uniqueKeys,
    probe_lateness_ms: percentiles(probeLateness),
    cpu,
    _lateness: probeLateness,
  };
}

/** With BENCH_PROFILE=1: a CPU profile of the edgecron isolate; returns stop() -> summary or null. */
async function profileIf(name) {
  if (!process.env.BENCH_PROFILE) return async () => null;
  const profiler = await isolateProfiler();
  await profiler.start();
  return async () => {
    const path = join(import.meta.dirname, "..", "results", `profile-${name}.cpuprofile`);
    const summary = await profiler.stop(path);
    console.log(`  profile of ${name}: ${path}`);
    return summary;
  };
}

function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
