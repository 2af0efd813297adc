// `npm start` as a user runs it, for the e2e files that start it: a real npm, node, supervisor,
// wrangler and workerd tree in a process group of its own (as a terminal's job is), what that tree
// is made of (from /proc), and how to make sure every process of it is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { expect } from "vitest";
import { ROOT, waitUntil } from "./harness";

export const HOST = "127.0.0.1";

interface ProcInfo {
  ppid: number;
  state: string;
  cmdline: string;
}

/** Every process in /proc, by pid (Linux only, like the rest of the e2e suites). */
export function readProcs(): Map<number, ProcInfo> {
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
export function processTree(rootPid: number): number[] {
  const procs = readProcs();
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, info] of procs) if (info.ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

/** A zombie has released its memory and sockets; only its exit status waits for a reaper. */
export function liveOnes(pids: number[]): number[] {
  const procs = readProcs();
  return pids.filter((pid) => {
    const info = procs.get(pid);
    return info !== undefined && info.state !== "Z";
  });
}

export function listenOn(port: number): Promise<Server> {
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

export interface RunningStart {
  npm: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
  /** The tree as collected once it was up: a process reparented after a failure is still in it. */
  pids: number[];
}

export interface NpmStartOptions {
  /** The npm script: "start" (default) or "start:targets". */
  script?: string;
  /** The checkout to run it in (default this one). */
  cwd?: string;
  stateDir: string;
  /** More environment, e.g. EDGECRON_TARGET_POLICY. */
  env?: Record<string, string>;
  /**
   * How long it may take to answer /healthz (default 90 s: a fresh state migrates three databases,
   * and this file's neighbours start their own wrangler on the same two cores).
   */
  readyTimeoutMs?: number;
}

const started: RunningStart[] = [];

export function spawnNpmStart(port: number, options: NpmStartOptions): RunningStart {
  const script = options.script ?? "start";
  const npm = spawn("npm", script === "start" ? ["start"] : ["run", script], {
    cwd: options.cwd ?? ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      EDGECRON_STATE_DIR: options.stateDir,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      ...options.env,
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
export async function startAndCollect(
  port: number,
  options: NpmStartOptions,
): Promise<{ run: RunningStart; pids: number[] }> {
  const run = spawnNpmStart(port, options);
  await waitUntil(
    async () => {
      if (run.npm.exitCode !== null) throw new Error(`npm start exited: ${run.output().slice(-2000)}`);
      return (await fetch(`http://${HOST}:${port}/healthz`)).ok;
    },
    {
      timeoutMs: options.readyTimeoutMs ?? 90_000,
      intervalMs: 200,
      what: `npm start on port ${port} to answer /healthz`,
    },
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

export async function expectNothingLeft(pids: number[], port: number): Promise<void> {
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

/** Stops a started tree with Ctrl-C (SIGINT to its group) and waits until nothing of it is left. */
export async function stopStart(run: RunningStart): Promise<void> {
  process.kill(-(run.npm.pid as number), "SIGINT");
  await expectNothingLeft(run.pids, run.port);
}

/** For afterEach: SIGKILLs whatever a test started and left running (a failed test must not leave its tree). */
export function killStarted(): void {
  for (const run of started.splice(0)) {
    const pids = [...new Set([...run.pids, ...processTree(run.npm.pid as number)])];
    for (const pid of liveOnes(pids)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
}
