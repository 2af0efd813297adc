// What `npm start` takes besides the port: the local OpenTelemetry recipe (docs/OPERATIONS.md) run as written
// (a line in .dev.vars, `npm start`, a real OTLP/HTTP receiver getting a run's spans and log lines),
// and the production target policy tried locally (EDGECRON_TARGET_POLICY=production with an
// allow-listed local target): the metadata address refused with a 400 naming the target.
//
// Not asserted yet: that the allow-listed target is then called. The consumers check each call
// again and still pass only ALLOW_PRIVATE_TARGETS (src/delivery, another change).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createTenantWithKey, freePort, ROOT, startTarget, type TargetServer, waitUntil } from "./harness";
import { HOST, killStarted, type RunningStart, spawnNpmStart, startAndCollect, stopStart } from "./npm-start";

const scratch = mkdtempSync(join(tmpdir(), "edgecron-local-settings-"));
// One local state for the file (the state directory is apart from the checkout): migrated once.
const stateDir = join(scratch, "state");
// Each test starts npm start on a fresh state (three databases to migrate) beside other suites.
const READY_MS = 150_000;
const TEST_MS = 300_000;
const closers: (() => Promise<void>)[] = [];

afterEach(killStarted);
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * A checkout as a fresh clone has it after `npm install`: the files `npm start` runs from, no
 * .dev.vars and no local state, node_modules linked from this one (so the recipe's .dev.vars is
 * its own, never a developer's).
 */
function freshCheckout(): string {
  const dir = join(scratch, "checkout");
  for (const entry of [
    "package.json",
    "wrangler.toml",
    "scripts",
    "src",
    "durable-objects",
    "migrations",
    "migrations-jobs",
    "public",
  ]) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

interface OtlpRequest {
  path: string;
  body: {
    resourceSpans?: { scopeSpans: { spans: { name: string; traceId: string }[] }[] }[];
    resourceLogs?: { scopeLogs: { logRecords: { body: { stringValue?: string }; traceId?: string }[] }[] }[];
  };
}

/** A local OTLP/HTTP JSON receiver (what a collector on port 4318 is), recording every request. */
async function startReceiver(): Promise<{ url: string; received: OtlpRequest[] }> {
  const received: OtlpRequest[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      // A request that is not OTLP JSON (an export cut off by a process stopping, or a stray
      // connection to this port) is refused, not thrown out of the test file (seen once in CI).
      let body: OtlpRequest["body"];
      try {
        body = JSON.parse(text) as OtlpRequest["body"];
      } catch {
        res.writeHead(400).end();
        return;
      }
      received.push({ path: req.url ?? "", body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://${HOST}:${(server.address() as AddressInfo).port}`, received };
}

async function useTarget(): Promise<TargetServer> {
  const target = await startTarget();
  closers.push(() => target.close());
  return target;
}

/** The admin token npm start printed, a tenant of its own and a client with the tenant's key. */
async function tenantOf(run: RunningStart, name: string) {
  const baseUrl = `http://${HOST}:${run.port}`;
  await waitUntil(() => run.output().includes("admin token:"), { what: "the announcement" });
  const adminToken = /admin token: (\S+)/.exec(run.output())?.[1] ?? "";
  return (await createTenantWithKey(baseUrl, { name }, adminToken)).api;
}

describe("the local OpenTelemetry recipe of docs/OPERATIONS.md", () => {
  it(
    "a line in .dev.vars and npm start: a run's spans and log lines reach the collector",
    async () => {
      const [receiver, target] = await Promise.all([startReceiver(), useTarget()]);
      const checkout = freshCheckout();
      // The recipe's first line, as written, with the receiver's port for 4318.
      execFileSync("sh", ["-c", `echo 'OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}' >> .dev.vars`], {
        cwd: checkout,
      });
      const port = await freePort();
      const { run } = await startAndCollect(port, {
        cwd: checkout,
        stateDir,
        readyTimeoutMs: READY_MS,
      });
      await waitUntil(() => run.output().includes("OpenTelemetry:"), { what: "the announcement" });
      expect(run.output()).toContain(`OpenTelemetry: each run's spans and log lines go to ${receiver.url}`);
      // The token line was added beside the recipe's, so the admin token works as on any start.
      expect(run.output()).toContain("added EDGECRON_ADMIN_TOKEN=dev-admin-token to .dev.vars");
      expect(readFileSync(join(checkout, ".dev.vars"), "utf8")).toBe(
        `OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}\nEDGECRON_ADMIN_TOKEN=dev-admin-token\n`,
      );

      const api = await tenantOf(run, "otel-recipe");
      const job = await api<{ id: string }>("POST", "/v1/jobs", {
        name: "otel-recipe",
        schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
        target: { url: `${target.url}/otel-recipe` },
      });
      expect(job.status, JSON.stringify(job.body)).toBe(201);
      expect((await api("POST", `/v1/jobs/${job.body.id}/trigger`)).status).toBe(202);
      const call = await waitUntil(() => target.calls.find((c) => c.path === "/otel-recipe"), {
        what: "the run's call",
      });
      const traceId = String(call.headers.traceparent).split("-")[1];
      const spans = await waitUntil(
        () => {
          const names = receiver.received
            .filter((request) => request.path === "/v1/traces")
            .flatMap((request) => request.body.resourceSpans ?? [])
            .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
            .filter((span) => span.traceId === traceId)
            .map((span) => span.name);
          return names.includes("edgecron.run") ? names : undefined;
        },
        { what: "the run's spans at the collector" },
      );
      expect(spans).toEqual(
        expect.arrayContaining(["edgecron.run", "edgecron.run.attempt", "edgecron.run.settled"]),
      );
      // The structured log lines too: the consumer's line about the message the run was in.
      await waitUntil(
        () =>
          receiver.received
            .filter((request) => request.path === "/v1/logs")
            .flatMap((request) => request.body.resourceLogs ?? [])
            .flatMap((resource) => resource.scopeLogs.flatMap((scope) => scope.logRecords))
            .some((record) => record.body.stringValue === "runs.succeeded"),
        { what: "the consumer's log lines at the collector" },
      );
      await stopStart(run);
    },
    TEST_MS,
  );
});

describe("npm start with the production target policy", () => {
  it(
    "refuses the metadata address and single-label names with a 400 naming the target; accepts and calls the allow-listed one",
    async () => {
      const target = await useTarget();
      const allowed = new URL(target.url).host;
      const port = await freePort();
      const { run } = await startAndCollect(port, {
        stateDir,
        readyTimeoutMs: READY_MS,
        env: { EDGECRON_TARGET_POLICY: "production", EDGECRON_ALLOWED_TARGETS: allowed },
      });
      await waitUntil(() => run.output().includes("target policy:"), { what: "the announcement" });
      expect(run.output()).toContain(
        `target policy: production: private, loopback, link-local and metadata addresses and internal names refused, except ${allowed} (EDGECRON_ALLOWED_TARGETS)`,
      );
      const api = await tenantOf(run, "policy");
      const create = (url: string) =>
        api<{ id?: string; errors?: { path: string; message: string }[] }>("POST", "/v1/jobs", {
          name: "policy",
          schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
          target: { url },
        });
      const refused: [string, RegExp][] = [
        ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is link-local, cloud metadata/],
        ["http://db/hook", /target host db is a single-label name/],
        [`http://127.0.0.1:${Number(new URL(target.url).port) + 1}/hook`, /127\.0\.0\.1 is loopback/],
        [`http://localhost:${new URL(target.url).port}/hook`, /localhost/],
      ];
      for (const [url, message] of refused) {
        const res = await create(url);
        expect(res.status, url).toBe(400);
        expect(res.body.errors, url).toEqual([
          { path: "target.url", message: expect.stringMatching(message) },
        ]);
      }
      const accepted = await create(`${target.url}/allowed`);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      // And it is called: the consumer's call-time check takes the same allow-list.
      const trigger = await api("POST", `/v1/jobs/${accepted.body.id}/trigger`);
      expect(trigger.status).toBe(202);
      await waitUntil(() => target.calls.find((c) => c.path === "/allowed"), {
        what: "the allow-listed call",
      });
      await stopStart(run);
    },
    TEST_MS,
  );

  it("refuses a policy it does not know, in one line, before starting anything", async () => {
    const run = spawnNpmStart(await freePort(), {
      stateDir,
      env: { EDGECRON_TARGET_POLICY: "strict" },
    });
    expect(await run.exited).not.toBe(0);
    expect(
      run
        .output()
        .split("\n")
        .filter((line) => line.startsWith("edgecron:")),
    ).toEqual(['edgecron: EDGECRON_TARGET_POLICY is "strict": use local (the default) or production']);
    expect(run.output()).not.toMatch(/migrations|workerd/);
  });
});
