#!/usr/bin/env node
// Runs the local dev server (scripts/dev-server.mjs) for scripts/start.mjs and guarantees that it
// never outlives `npm start`.
//
// Usage: node scripts/dev-supervisor.mjs <command> <args...>, with stdin a pipe from start.mjs.
//
// Why a separate process: when the node process of `npm start` is SIGKILLed (or its whole process
// group is), it can run no cleanup, and wrangler and its workerd children would live on, still
// holding the port. start.mjs therefore starts this supervisor in a process group of its own and
// keeps the only write end of the supervisor's stdin. The kernel closes that end whenever
// start.mjs dies, however it dies, so EOF on stdin means "stop now". The supervisor starts
// wrangler in yet another process group (workerd inherits it) so that the whole tree can be
// signalled at once and waited for, and this process, outside that group, is still there to
// escalate to SIGKILL after a grace period.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const GRACE_MS = 5_000;
const POLL_MS = 100;
const [wrangler, ...wranglerArgs] = process.argv.slice(2);
if (!wrangler) {
  console.error("usage: dev-supervisor.mjs <wrangler> <args...>");
  process.exit(2);
}

/** Pids of the live (not zombie) members of a process group; /proc, or kill(-pgid, 0) elsewhere. */
function liveGroupMembers(pgid) {
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command: state, ppid, pgrp, ...
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") members.push(Number(entry));
    } catch {}
  }
  return members;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForGroupExit(pgid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (liveGroupMembers(pgid).length === 0) return true;
    await sleep(POLL_MS);
  }
  return liveGroupMembers(pgid).length === 0;
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {}
}

const dev = spawn(wrangler, wranglerArgs, { detached: true, stdio: ["ignore", "inherit", "inherit"] });
dev.on("error", (error) => {
  console.error(`could not start wrangler: ${error.message}`);
  process.exit(1);
});
let wranglerExitCode = null;
dev.on("exit", (code, signal) => {
  wranglerExitCode = code ?? (signal ? 1 : 0);
  void stop();
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  const pgid = dev.pid;
  if (pgid !== undefined) {
    signalGroup(pgid, "SIGTERM");
    if (!(await waitForGroupExit(pgid, GRACE_MS))) {
      signalGroup(pgid, "SIGKILL");
      await waitForGroupExit(pgid, GRACE_MS);
    }
  }
  process.exit(wranglerExitCode ?? 0);
}

// EOF: start.mjs asked us to stop, or died. Either way the tree goes.
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
// Signals sent to us directly mean the same; they never kill us before the tree is gone.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);
// Output goes to start.mjs through pipes: once it is gone, writes fail, which must not crash us.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});
