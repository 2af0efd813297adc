// Starting what the bench measures: the production bundle under Miniflare (no wrangler dev proxy
// on outbound fetches: docs/PERFORMANCE.md), a tiny bench worker in the same workerd process for
// the ceiling, and the HTTP target as a separate Node process.
import { execFileSync, fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";
import { keepIdleConnectionsOpen } from "../../scripts/lib/loopback-keep-alive.mjs";
import { INSPECTOR_PORT } from "./profile.mjs";

// Miniflare's loopback server lives in this process too: a local queue whose log request meets a
// connection Node closed after 5 s idle stops delivering for good (scripts/lib/loopback-keep-alive.mjs).
keepIdleConnectionsOpen();

export const ROOT = join(import.meta.dirname, "..", "..");
export const ADMIN_TOKEN = "bench-admin-token";
export const DISPATCH_QUEUE = "edgecron-dispatch";
/** The second dispatch queue (wrangler.toml: DISPATCH_QUEUES = "2", shard s -> queue s % 2). */
export const DISPATCH_QUEUE_1 = "edgecron-dispatch-1";
export const DEAD_LETTER_QUEUE = "edgecron-dead-letters";
export const SIDE_DELIVERY_QUEUE = "edgecron-side-deliveries";

/** The statements of a migration: split at a line's final `;`, a trigger's BEGIN .. END kept whole. */
function sqlStatements(sql) {
  const statements = [];
  let current = [];
  let depth = 0;
  for (const line of sql.replace(/--.*$/gm, "").split("\n")) {
    current.push(line);
    if (/\bBEGIN\s*$/i.test(line)) depth += 1;
    if (/^\s*END\s*;\s*$/i.test(line)) depth -= 1;
    if (depth === 0 && /;\s*$/.test(line)) {
      statements.push(current.join("\n").trim().replace(/;$/, ""));
      current = [];
    }
  }
  statements.push(current.join("\n").trim());
  return statements.filter(Boolean);
}

/** Runs every .sql file of `dir` (in name order) against `db`, statement by statement. */
async function applyMigrations(db, dir) {
  for (const file of readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of sqlStatements(readFileSync(join(ROOT, dir, file), "utf8"))) {
      await db.prepare(statement).run();
    }
  }
}

/** `wrangler deploy --dry-run --outdir dist`: the same bundle a deploy would upload. */
export function buildBundle() {
  execFileSync(join(ROOT, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", "dist"], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return join(ROOT, "dist", "index.js");
}

/** Reads the [vars] of wrangler.toml (flat `KEY = "value"` lines are all it holds). */
export function wranglerVars() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const section = toml.split(/^\[vars\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
  const vars = {};
  for (const match of section.matchAll(/^([A-Z_]+)\s*=\s*"([^"]*)"/gm)) vars[match[1]] = match[2];
  return vars;
}

/**
 * The ceiling worker: sendBatch(100) into its own queues as fast as the in-flight cap allows;
 * `bench-noop` is consumed by a consumer that only acks, `bench-fetch` by one that calls the
 * target through a pool of `concurrency` like the dispatch consumer. Counters are globals: one
 * isolate holds both the fetch handler and the consumer.
 */
const BENCH_WORKER = `
let consumed = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function pool(items, n, fn) {
  let next = 0;
  const worker = async () => { while (next < items.length) { const i = next++; try { await fn(items[i]); } catch {} } };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/count") return Response.json({ consumed });
    if (url.pathname === "/reset") { consumed = 0; return Response.json({ ok: true }); }
    const n = Number(url.searchParams.get("n"));
    const cap = Number(url.searchParams.get("cap") ?? 8000);
    const kind = url.searchParams.get("kind");
    const target = url.searchParams.get("target");
    const queue = kind === "fetch" ? env.BENCH_FETCH : env.BENCH_NOOP;
    const start = consumed;
    let sent = 0;
    while (sent < n) {
      if (sent - (consumed - start) + 100 > cap) { await sleep(2); continue; }
      const size = Math.min(100, n - sent);
      const batch = [];
      for (let i = 0; i < size; i++) batch.push({ body: { i: sent + i, url: target }, contentType: "json" });
      await queue.sendBatch(batch);
      sent += size;
    }
    return Response.json({ sent });
  },
  async queue(batch, env) {
    if (batch.queue === "bench-fetch") {
      const c = Number(env.CONCURRENCY);
      await pool(batch.messages, c, async (m) => {
        const res = await fetch(m.body.url + "/" + m.body.i, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
        // Reading the (2-byte) body keeps the connection for reuse; cancel() closes it.
        await res.arrayBuffer();
      });
    }
    consumed += batch.messages.length;
    batch.ackAll();
  },
};
`;

/** Starts Miniflare with every binding of wrangler.toml plus the bench worker. */
export async function startScheduler({
  scriptPath,
  varsOverride = {},
  targetConcurrency = 32,
  verbose = false,
}) {
  const persistDir = mkdtempSync(join(tmpdir(), "edgecron-bench-"));
  const vars = {
    ...wranglerVars(),
    EDGECRON_ADMIN_TOKEN: ADMIN_TOKEN,
    // Every statement's rows written and every setAlarm counted (src/rows-meter.ts);
    // BENCH_ROWS_METER=0 runs without the meter.
    EDGECRON_ROWS_METER: process.env.BENCH_ROWS_METER === "0" ? "0" : "1",
    ALLOW_PRIVATE_TARGETS: "true",
    ...(process.env.BENCH_TRACE ? { BENCH_TRACE: "1" } : {}),
    ...(process.env.BENCH_BP_MS ? { BENCH_BP_MS: process.env.BENCH_BP_MS } : {}),
    ...varsOverride,
  };
  const mf = new Miniflare({
    log: new Log(verbose ? LogLevel.DEBUG : LogLevel.WARN),
    // The worker logs one JSON line per job change, dispatch and outcome. Printing a million of
    // them through this process would bill the bench's own CPU to the run; drain them instead.
    handleRuntimeStdio(stdout, stderr) {
      if (verbose) {
        stdout.pipe(process.stdout);
        stderr.pipe(process.stderr);
      } else {
        stdout.resume();
        stderr.on("data", (chunk) => {
          const text = String(chunk);
          if (!/web-socket|ENOTFOUND|NOSENTRY/.test(text))
            process.stderr.write(`[workerd] ${text.slice(0, 2000)}`);
        });
      }
    },
    host: "127.0.0.1",
    port: 0,
    ...(process.env.BENCH_PROFILE ? { inspectorPort: INSPECTOR_PORT } : {}),
    d1Persist: process.env.BENCH_MEMORY ? false : join(persistDir, "d1"),
    kvPersist: process.env.BENCH_MEMORY ? false : join(persistDir, "kv"),
    durableObjectsPersist: process.env.BENCH_MEMORY ? false : join(persistDir, "do"),
    workers: [
      {
        name: "edgecron",
        modules: true,
        scriptPath,
        compatibilityDate: "2026-04-20",
        compatibilityFlags: ["nodejs_compat", "queue_consumer_no_wait_for_wait_until"],
        bindings: vars,
        d1Databases: {
          DB: "00000000-0000-0000-0000-000000000001",
          DB_JOBS_0: "00000000-0000-0000-0000-000000000010",
          DB_JOBS_1: "00000000-0000-0000-0000-000000000011",
        },
        kvNamespaces: { DEDUP_KV: "00000000000000000000000000000002" },
        durableObjects: {
          SHARD_SCHEDULER: { className: "ShardScheduler", useSQLite: true },
          MAINTENANCE: { className: "Maintenance", useSQLite: true },
          FLOW_GATE: { className: "FlowGate", useSQLite: true },
          DISPATCHER: { className: "Dispatcher", useSQLite: true },
        },
        ratelimits: { AUTH_FAILURES: { simple: { limit: 20, period: 60 } } },
        queueProducers: { DISPATCH_QUEUE, DISPATCH_QUEUE_1, DEAD_LETTER_QUEUE, SIDE_DELIVERY_QUEUE },
        queueConsumers: {
          [DISPATCH_QUEUE]: {
            maxBatchSize: 100,
            maxBatchTimeout: 0,
            maxRetries: 3,
            deadLetterQueue: DEAD_LETTER_QUEUE,
          },
          [DISPATCH_QUEUE_1]: {
            maxBatchSize: 100,
            maxBatchTimeout: 0,
            maxRetries: 3,
            deadLetterQueue: DEAD_LETTER_QUEUE,
          },
          [DEAD_LETTER_QUEUE]: { maxBatchSize: 100, maxBatchTimeout: 1 },
          [SIDE_DELIVERY_QUEUE]: { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 30 },
        },
        analyticsEngineDatasets: { ANALYTICS: { dataset: "edgecron_events" } },
      },
      {
        name: "bench",
        modules: true,
        script: BENCH_WORKER,
        compatibilityDate: "2026-04-20",
        bindings: { CONCURRENCY: String(targetConcurrency) },
        queueProducers: { BENCH_NOOP: "bench-noop", BENCH_FETCH: "bench-fetch" },
        queueConsumers: {
          "bench-noop": { maxBatchSize: 100, maxBatchTimeout: 0 },
          "bench-fetch": { maxBatchSize: 100, maxBatchTimeout: 0 },
        },
      },
    ],
  });
  const url = await mf.ready;
  const db = await mf.getD1Database("DB");
  await applyMigrations(db, "migrations");
  for (const binding of ["DB_JOBS_0", "DB_JOBS_1"]) {
    await applyMigrations(await mf.getD1Database(binding), "migrations-jobs");
  }
  const benchWorker = await mf.getWorker("bench");
  return {
    mf,
    persistDir,
    url: url.toString().replace(/\/$/, ""),
    db,
    benchWorker,
    async dispose() {
      await mf.dispose();
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
}

/** Forks bench/target.mjs; `ask` sends an IPC request and resolves with its answer. */
export async function startTarget() {
  const child = fork(join(import.meta.dirname, "..", "target.mjs"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.on("message", (msg) => {
      if (msg.type === "ready") resolve(msg.port);
    });
  });
  let nextId = 1;
  const pending = new Map();
  child.on("message", (msg) => {
    const resolve = pending.get(msg.id);
    if (resolve) {
      pending.delete(msg.id);
      resolve(msg);
    }
  });
  const ask = (request) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.send({ ...request, id });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    ask,
    stop() {
      child.kill("SIGTERM");
    },
  };
}

/** The workerd processes Miniflare started (children of this Node process), with their RSS. */
export function workerdMemory() {
  const result = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const name = status.match(/^Name:\s+(\S+)/m)?.[1];
      const ppid = Number(status.match(/^PPid:\s+(\d+)/m)?.[1]);
      if (name !== "workerd" || ppid !== process.pid) continue;
      const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, "m"))?.[1] ?? 0);
      result.push({
        pid: Number(entry),
        rssMb: kb("VmRSS") / 1024,
        peakRssMb: kb("VmHWM") / 1024,
        // anonymous (heaps, SQLite page caches) vs file-backed (mapped files, reclaimable)
        anonMb: kb("RssAnon") / 1024,
        fileMb: kb("RssFile") / 1024,
      });
    } catch {
      // The process went away between readdir and read.
    }
  }
  return result;
}

/** Bytes under a directory (the persisted D1 / Durable Object SQLite files). */
export function diskBytes(dir) {
  try {
    return Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
