// The dev server's loopback keeps an idle connection open. The loopback is the HTTP server the dev
// server's Node process serves its runtimes (wrangler's local simulators call it; a local queue
// logs each batch it delivered through it). With Node's default, an idle keep-alive connection
// was closed after 5 s, and a request the runtime sent on it at that moment failed with "Network
// connection lost": when that was a local queue's log of a batch, the queue never delivered again
// (the crash test's hang after a restart; scripts/lib/loopback-keep-alive.mjs). Deterministic:
// with the default, the connection held idle here is closed after about 5 s.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeState, type SchedulerProcess, startScheduler } from "./harness";
import { writeTargetConfigs } from "./target-configs";

/** Longer than Node's default keepAliveTimeout (5 s) and its timer's slack. */
const IDLE_MS = 7_000;

/** The loopback addresses (host, port) on the command lines of the workerd processes of a group. */
function loopbackAddressesOf(processGroup: number): { host: string; port: number }[] {
  const addresses: { host: string; port: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state, ppid, pgrp.
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (pgrp !== processGroup || !commandLine.some((arg) => arg.endsWith("workerd"))) continue;
      for (const arg of commandLine) {
        const match = /^--external-addr=loopback=(.+):(\d+)$/.exec(arg);
        if (match?.[1] && match[2]) addresses.push({ host: match[1], port: Number(match[2]) });
      }
    } catch {
      // A process that ended while being read.
    }
  }
  return addresses;
}

/** One request on `socket` (kept alive); resolves with the status line of its answer. */
function statusOfRequest(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (!received.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.off("close", onClose);
      resolve(received.slice(0, received.indexOf("\r\n")));
    };
    const onClose = () => reject(new Error("the loopback closed the connection instead of answering"));
    socket.on("data", onData);
    socket.once("close", onClose);
    // An unknown path: answered 404, nothing done.
    socket.write("GET /edgecron-idle-probe HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n");
  });
}

describe.each([
  ["scripts/dev-server.mjs (npm start)", () => []],
  ["wrangler dev -c a -c b (npm run start:targets)", () => writeTargetConfigs("http://127.0.0.1:9/record")],
])("e2e: the loopback of %s keeps idle connections open", (_server, configsOf: () => string[]) => {
  let server: SchedulerProcess;
  let configs: string[] = [];

  beforeAll(async () => {
    configs = configsOf();
    server = await startScheduler(configs.length > 0 ? { configs } : {});
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeState(server.stateDir);
    for (const config of configs) rmSync(config, { force: true });
  });

  it(`answers a second request on a connection left idle ${IDLE_MS} ms`, async () => {
    const addresses = loopbackAddressesOf(server.processGroup);
    expect(addresses.length).toBeGreaterThan(0);
    const outcomes = await Promise.all(addresses.map(({ host, port }) => requestAfterIdle(host, port)));
    expect(outcomes).toEqual(addresses.map(() => "answered after idle"));
  });
});

/** Two requests on one connection with IDLE_MS between them: what became of the second. */
async function requestAfterIdle(host: string, port: number): Promise<string> {
  const socket = connect(port, host);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const openedAtMs = Date.now();
    let closedAfterMs: number | null = null;
    socket.once("close", () => {
      closedAfterMs = Date.now() - openedAtMs;
    });
    if (!/^HTTP\/1\.1 \d{3}/.test(await statusOfRequest(socket))) return "first request unanswered";
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    if (closedAfterMs !== null) return `${host}:${port} closed the idle connection after ${closedAfterMs} ms`;
    return /^HTTP\/1\.1 \d{3}/.test(await statusOfRequest(socket))
      ? "answered after idle"
      : "second request unanswered";
  } finally {
    socket.destroy();
  }
}
