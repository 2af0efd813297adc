// `npm start` as a user runs it: a real npm, node, supervisor, wrangler and workerd tree in a
// process group of its own (as a terminal's job is). Whatever signal ends it, and whoever receives
// it, every process of that tree must be gone afterwards and the port free.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createTenantWithKey, freePort, ROOT, waitUntil } from "./harness";
import {
  expectNothingLeft,
  HOST,
  killStarted,
  listenOn,
  liveOnes,
  readProcs,
  spawnNpmStart as spawnTree,
  startAndCollect as startTree,
} from "./npm-start";

// One state dir for the whole file: after the first start the migrations are already applied.
const stateDir = mkdtempSync(join(tmpdir(), "edgecron-start-e2e-"));
const spawnNpmStart = (port: number, script = "start") => spawnTree(port, { script, stateDir });
const startAndCollect = (port: number, script = "start") => startTree(port, { script, stateDir });

// A failed test must not leave its tree behind for the next one.
afterEach(killStarted);

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
    const adminToken = /admin token: (\S+)/.exec(run.output())?.[1] ?? "";
    const { api } = await createTenantWithKey(baseUrl, { name: "targets" }, adminToken);
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
