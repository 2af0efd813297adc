// Every code block of README.md and docs/*.md runs as written, against a real dev server and a
// real local target (test/e2e/doc-blocks.ts says how each kind of block is run, and what is
// replaced: the local addresses and token only). A block the test cannot run fails it unless its
// fence says `no-run`.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkedShell, type DocBlock, docBlocks, localised, type Places, ROLES } from "./doc-blocks";
import {
  ADMIN_TOKEN,
  apiClient,
  createTenantWithKey,
  freePort,
  ROOT,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

const BLOCKS = docBlocks(ROOT);
const RUN_DIR = join(ROOT, ".docs-run", String(process.pid));
const byRole = (role: string) => BLOCKS.filter((block) => block.role === role);

let scheduler: SchedulerProcess;
let target: TargetServer;
let places: Places;
let tenant: { id: string; signing_secret: string };
let tenantKey = "";

beforeAll(async () => {
  [scheduler, target] = await Promise.all([startScheduler(), startTarget()]);
  places = {
    baseUrl: scheduler.baseUrl,
    adminToken: ADMIN_TOKEN,
    targetPort: Number(new URL(target.url).port),
  };
  const access = await createTenantWithKey(scheduler.baseUrl, { name: "docs" });
  tenant = { id: access.id, signing_secret: access.signingSecret };
  tenantKey = access.key;
  mkdirSync(RUN_DIR, { recursive: true });
});

afterAll(async () => {
  rmSync(RUN_DIR, { recursive: true, force: true });
  await Promise.all([scheduler?.stop(), target?.close()]);
});

/** The block as an ES module file inside the repository (so `edgecron/client` resolves), TS stripped. */
async function moduleFile(block: DocBlock, name: string, port = places.targetPort): Promise<string> {
  const source = localised(block.code, { ...places, targetPort: port });
  const code =
    block.language === "ts" ? (await transform(source, { loader: "ts", format: "esm" })).code : source;
  const path = join(RUN_DIR, `${name}.mjs`);
  writeFileSync(path, code);
  return path;
}

const blockEnv = () => ({
  ...process.env,
  EDGECRON_TOKEN: tenantKey,
  EDGECRON_KEY: tenantKey,
  EDGECRON_API_KEY: tenantKey,
  WRANGLER_SEND_METRICS: "false",
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** A job of the docs tenant calling `url` once, a second from now. */
async function jobCalling(url: string, name: string): Promise<string> {
  const api = apiClient(scheduler.baseUrl, tenantKey);
  const job = await api<{ id: string }>("POST", "/v1/jobs", {
    name,
    schedule: { type: "once", delay: "1s" },
    target: { url, method: "POST", body: { from: name } },
  });
  expect(job.status).toBe(201);
  return job.body.id;
}

/** The first call the recording target received on `path`, once it has. */
async function callTo(path: string) {
  return waitUntil(async () => target.calls.find((call) => call.path === path), {
    timeoutMs: 20_000,
    what: `a call to ${path}`,
  });
}

describe("the code blocks of README.md and docs/*.md", () => {
  it("each says how it runs", () => {
    const unknown = BLOCKS.filter((block) => !(ROLES as readonly string[]).includes(block.role));
    expect(unknown.map((block) => `${block.where}: \`\`\`${block.language} ${block.role}`)).toEqual([]);
    const unrunnable = byRole("run").filter((block) => !["sh", "js", "ts"].includes(block.language));
    expect(unrunnable.map((block) => `${block.where}: a ${block.language || "bare"} block to run`)).toEqual(
      [],
    );
    for (const role of ["receiver", "verifier", "worker"]) expect(byRole(role).length).toBeGreaterThan(0);
  });

  it.each(byRole("run").map((block) => [block.where, block] as const))(
    "%s runs",
    async (where, block) => {
      const [command, args] =
        block.language === "sh"
          ? ["bash", ["-c", checkedShell(localised(block.code, places))]]
          : [process.execPath, [await moduleFile(block, where.replace(/\W/g, "-"))]];
      const failure = await promisify(execFile)(command, args, {
        cwd: ROOT,
        env: blockEnv(),
        timeout: 60_000,
      }).then(
        () => "",
        (error: { code?: unknown; stdout?: string; stderr?: string }) =>
          `${where} failed (${String(error.code)}):\n${error.stderr}\n${error.stdout}`,
      );
      expect(failure).toBe("");
    },
    90_000,
  );

  it.each(byRole("receiver").map((block) => [block.where, block] as const))(
    "%s receives a real call and completes its run",
    async (where, block) => {
      const port = await freePort();
      const child = spawn(process.execPath, [await moduleFile(block, "receiver", port)], {
        cwd: ROOT,
        stdio: "pipe",
      });
      let output = "";
      child.stderr.on("data", (chunk) => {
        output += chunk;
      });
      try {
        // A TCP connect, not a request: every request it gets is a run it reports on.
        await waitUntil(() => listening(port), { timeoutMs: 10_000, what: `${where} listening` });
        const jobId = await jobCalling(`http://127.0.0.1:${port}/export`, "docs-receiver");
        const api = apiClient(scheduler.baseUrl, tenantKey);
        const run = await waitUntil(
          async () => {
            const [latest] = (
              await api<{ data: { state: string; result: unknown }[] }>("GET", `/v1/jobs/${jobId}/runs`)
            ).body.data;
            return latest?.state === "SUCCEEDED" ? latest : undefined;
          },
          { timeoutMs: 30_000, what: "the receiver's run SUCCEEDED" },
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}\nthe receiver's stderr: ${output}`);
        });
        expect(run.result).toEqual({ rows: 1200 });
        expect(output).toBe("");
      } finally {
        child.kill();
      }
    },
    60_000,
  );

  it.each(byRole("verifier").map((block) => [block.where, block] as const))(
    "%s accepts a real call with the tenant's secret, and only with it",
    async (_where, block) => {
      await jobCalling(`${target.url}/verify-node`, "docs-verifier");
      const call = await callTo("/verify-node");
      const { verifyEdgecron } = await import(pathToFileURL(await moduleFile(block, "verifier")).href);
      const request = { method: call.method, headers: call.headers };
      const url = `${target.url}${call.path}`;
      expect(verifyEdgecron(request, url, call.body, [tenant.signing_secret])).toBe(true);
      expect(verifyEdgecron(request, url, call.body, ["another secret"])).toBe(false);
      expect(verifyEdgecron(request, `${target.url}/elsewhere`, call.body, [tenant.signing_secret])).toBe(
        false,
      );
    },
    60_000,
  );

  it.each(byRole("worker").map((block) => [block.where, block] as const))(
    "%s answers a real call it verified, and refuses it with another secret",
    async (_where, block) => {
      await jobCalling(`${target.url}/verify-worker`, "docs-worker");
      const call = await callTo("/verify-worker");
      const worker = (await import(pathToFileURL(await moduleFile(block, "worker")).href)).default;
      const request = () =>
        new Request(`${target.url}${call.path}`, {
          method: call.method,
          headers: Object.entries(call.headers).flatMap(([name, value]) =>
            typeof value === "string" ? [[name, value] as [string, string]] : [],
          ),
          body: call.body,
        });
      const accepted: Response = await worker.fetch(request(), { EDGECRON_SECRET: tenant.signing_secret });
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toEqual({ received: { from: "docs-worker" } });
      const refused: Response = await worker.fetch(request(), { EDGECRON_SECRET: "another secret" });
      expect(refused.status).toBe(401);
    },
    60_000,
  );
});
