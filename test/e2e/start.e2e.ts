// `npm start` as a user runs it: a real npm, node, supervisor, wrangler and workerd tree in a
// process group of its own (as a terminal's job is). Whatever signal ends it, and whoever receives
// it, every process of that tree must be gone afterwards and the port free.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { apiClient, freePort, ROOT, waitUntil } from "./harness";

const HOST = "127.0.0.1";
// One state dir for the whole file: after the first start the migrations are already applied.
const stateDir = mkdtempSync(join(tmpdir(), "edgecron-start-e2e-"));
const started: RunningStart[] = [];

interface ProcInfo {
  ppid: number;
  state: string;
  cmdline: string;
}

/** Every process in /proc, by pid (Linux only, like the rest of the e2e suites). */
function readProcs(): Map<number, ProcInfo> {
  const procs = new Map<number, ProcInfo>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state = "", ppid = "0"] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      procs.set(Number(entry), { ppid: Number(ppid), state, cmdline });
    } catch {}
  }
  return procs;
}

/** `rootPid` and all its descendants, found by walking parent links. */
function processTree(rootPid: number): number[] {
  const procs = readProcs();
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, info] of procs) if (info.ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

/** A zombie has released its memory and sockets; only its exit status waits for a reaper. */
function liveOnes(pids: number[]): number[] {
  const procs = readProcs();
  return pids.filter((pid) => {
    const info = procs.get(pid);
    return info !== undefined && info.state !== "Z";
  });
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, HOST, () => resolve(server));
  });
}

async function portIsFree(port: number): Promise<boolean> {
  try {
    const server = await listenOn(port);
    await new Promise((resolve) => server.close(resolve));
    return true;
  } catch {
    return false;
  }
}

interface RunningStart {
  npm: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
  /** The tree as collected once it was up: a process reparented after a failure is still in it. */
  pids: number[];
}

function spawnNpmStart(port: number, script = "start"): RunningStart {
  const npm = spawn("npm", script === "start" ? ["start"] : ["run", script], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      EDGECRON_STATE_DIR: stateDir,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  npm.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  npm.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  const running: RunningStart = { npm, port, output: () => output, exited, pids: [] };
  started.push(running);
  return running;
}

/** Starts `npm start` and returns once it answers /healthz, with every pid of its tree. */
async function startAndCollect(
  port: number,
  script = "start",
): Promise<{ run: RunningStart; pids: number[] }> {
  const run = spawnNpmStart(port, script);
  await waitUntil(
    async () => {
      if (run.npm.exitCode !== null) throw new Error(`npm start exited: ${run.output().slice(-2000)}`);
      return (await fetch(`http://${HOST}:${port}/healthz`)).ok;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `npm start on port ${port} to answer /healthz` },
  );
  const pids = processTree(run.npm.pid as number);
  run.pids = pids;
  const commands = pids.map((pid) => readProcs().get(pid)?.cmdline ?? "");
  // The tree we must see vanish: npm, start.mjs, the supervisor, wrangler and workerd.
  expect(commands.some((cmd) => cmd.includes("scripts/start.mjs"))).toBe(true);
  expect(commands.some((cmd) => cmd.includes("dev-supervisor.mjs"))).toBe(true);
  expect(commands.some((cmd) => cmd.includes("workerd"))).toBe(true);
  return { run, pids };
}

async function expectNothingLeft(pids: number[], port: number): Promise<void> {
  await waitUntil(() => liveOnes(pids).length === 0, {
    timeoutMs: 20_000,
    intervalMs: 100,
    what: "every process of the npm start tree to exit",
  }).catch((error) => {
    const procs = readProcs();
    const left = liveOnes(pids).map((pid) => `${pid} ${procs.get(pid)?.cmdline.slice(0, 120)}`);
    throw new Error(`${String(error)}; still running:\n${left.join("\n")}`);
  });
  await waitUntil(() => portIsFree(port), { timeoutMs: 5_000, what: `port ${port} to be free` });
}

afterEach(async () => {
  // A failed test must not leave its tree behind for the next one.
  for (const run of started.splice(0)) {
    const pids = [...new Set([...run.pids, ...processTree(run.npm.pid as number)])];
    for (const pid of liveOnes(pids)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
});

afterAll(() => {
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start", () => {
  describe.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)("on %s", (signal) => {
    it("sent to the npm process alone, stops every process of its tree and frees the port", async () => {
      const port = await freePort();
      const { run, pids } = await startAndCollect(port);
      process.kill(run.npm.pid as number, signal);
      await expectNothingLeft(pids, port);
    });

    it("sent to its whole process group (a terminal's job), stops every process and frees the port", async () => {
      const port = await freePort();
      const { run, pids } = await startAndCollect(port);
      process.kill(-(run.npm.pid as number), signal);
      await expectNothingLeft(pids, port);
    });
  });

  describe("when killed with SIGKILL, which it cannot handle", () => {
    it("the node process alone: the supervisor sees its stdin close and stops wrangler", async () => {
      const port = await freePort();
      const { pids } = await startAndCollect(port);
      const startPid = pids.find((pid) => readProcs().get(pid)?.cmdline.includes("scripts/start.mjs"));
      process.kill(startPid as number, "SIGKILL");
      await expectNothingLeft(pids, port);
    });

    it("the whole process group: nothing is left either", async () => {
      const port = await freePort();
      const { run, pids } = await startAndCollect(port);
      process.kill(-(run.npm.pid as number), "SIGKILL");
      await expectNothingLeft(pids, port);
    });
  });

  it("on a port already taken, says so in one line and exits non-zero", async () => {
    const port = await freePort();
    const squatter = await listenOn(port);
    try {
      const run = spawnNpmStart(port);
      const code = await run.exited;
      expect(code).not.toBe(0);
      const lines = run.output().split("\n");
      expect(lines.filter((line) => line.startsWith("edgecron: port"))).toEqual([
        `edgecron: port ${port} on ${HOST} is already in use (another npm start?); stop that process or pick another: PORT=${port + 1} npm start`,
      ]);
      expect(run.output()).not.toContain("workerd");
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it("says once that it is ready, and nothing wrangler would say on every start", async () => {
    const port = await freePort();
    const { run, pids } = await startAndCollect(port);
    await waitUntil(() => run.output().includes("edgecron is running"), { what: "the announcement" });
    expect(run.output().match(/Ready on/g)).toHaveLength(1);
    expect(run.output()).not.toMatch(/experimental|WARNING/);
    process.kill(-(run.npm.pid as number), "SIGINT");
    await expectNothingLeft(pids, port);
  });

  it("npm run start:targets: a service, a workflow and a queue target reach the example Worker", async () => {
    const port = await freePort();
    const { run, pids } = await startAndCollect(port, "start:targets");
    const baseUrl = `http://${HOST}:${port}`;
    await waitUntil(() => run.output().includes("admin token:"), { what: "the announcement" });
    const admin = apiClient(baseUrl, /admin token: (\S+)/.exec(run.output())?.[1] ?? "");
    const tenant = (await admin<{ id: string }>("POST", "/v1/tenants", { name: "targets" })).body;
    const api = apiClient(
      baseUrl,
      (await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.id })).body.key,
    );
    const targets = [
      { type: "service", binding: "BILLING", path: "/hook" },
      { type: "workflow", binding: "REPORT_FLOW", body: { report: "daily" } },
      { type: "queue", binding: "USER_EVENTS", body: { event: "tick" } },
    ];
    for (const target of targets) {
      const job = await api<{ id: string }>("POST", "/v1/jobs", {
        name: `try-${target.type}`,
        schedule: { type: "once", delay: "1s" },
        target,
      });
      expect(job.status, JSON.stringify(job.body)).toBe(201);
      await waitUntil(
        async () => {
          const runs = (await api<{ data: { state: string }[] }>("GET", `/v1/jobs/${job.body.id}/runs`)).body
            .data;
          return runs[0]?.state === "SUCCEEDED";
        },
        { timeoutMs: 20_000, what: `the ${target.type} target's run SUCCEEDED` },
      );
    }
    expect(run.output()).toContain("binding targets: BILLING:service");
    process.kill(-(run.npm.pid as number), "SIGINT");
    await expectNothingLeft(pids, port);
  });

  it("runs two instances side by side on one state dir (no inspector port to clash)", async () => {
    const [firstPort, secondPort] = [await freePort(), await freePort()];
    const first = await startAndCollect(firstPort);
    const second = await startAndCollect(secondPort);
    for (const port of [firstPort, secondPort]) {
      expect((await fetch(`http://${HOST}:${port}/healthz`)).status).toBe(200);
    }
    process.kill(-(first.run.npm.pid as number), "SIGINT");
    process.kill(-(second.run.npm.pid as number), "SIGINT");
    await expectNothingLeft(first.pids, firstPort);
    await expectNothingLeft(second.pids, secondPort);
  });
});

/** Sockets open in these processes (each local connection counts once per end it holds). */
function socketsOf(pids: number[]): number {
  let sockets = 0;
  for (const pid of liveOnes(pids)) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets += 1;
        } catch {}
      }
    } catch {}
  }
  return sockets;
}

describe("npm start under a stream of target calls", () => {
  it("holds a few sockets, not several per call (wrangler dev's inspector forwarded each fetch)", async () => {
    let calls = 0;
    const target = createHttpServer((req, res) => {
      calls += 1;
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    await new Promise<void>((resolve) => target.listen(0, HOST, resolve));
    const targetPort = (target.address() as AddressInfo).port;
    try {
      const port = await freePort();
      const { run, pids } = await startAndCollect(port);
      const token = /^EDGECRON_ADMIN_TOKEN=(.*)$/m.exec(readFileSync(join(ROOT, ".dev.vars"), "utf8"))?.[1];
      const call = async (path: string, body: unknown, bearer = token) => {
        const res = await fetch(`http://${HOST}:${port}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return (await res.json()) as { id: string; key: string };
      };
      const tenant = await call("/v1/tenants", { name: "sockets" });
      const { key } = await call("/v1/api-keys", { tenant_id: tenant.id });
      const before = socketsOf(pids);
      const jobs = Array.from({ length: 30 }, (_, i) => ({
        name: `sockets-${i}`,
        schedule: { type: "interval", every: "1s" },
        target: { url: `http://${HOST}:${targetPort}/${i}` },
        end_at: new Date(Date.now() + 60_000).toISOString(),
      }));
      await call("/v1/jobs/batch", { jobs }, key);
      await waitUntil(() => calls >= 150, { timeoutMs: 60_000, intervalMs: 200, what: "150 target calls" });
      // With the inspector: about four more local connections per call (hundreds here).
      expect(socketsOf(pids) - before).toBeLessThan(100);
      process.kill(-(run.npm.pid as number), "SIGINT");
      await expectNothingLeft(pids, port);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
