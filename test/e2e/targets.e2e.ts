// Binding targets through a real `wrangler dev` running two Workers in one process (several
// `-c` configs, as wrangler 4.86 supports offline): edgecron, with a service binding, a Workflow
// binding and a Queue producer, and test/fixtures/targets-worker behind them. The auxiliary
// Worker posts a copy of everything it receives (service call, Workflow run, queue message) to a
// local recorder, so the test sees each instant's deliveries from outside.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type apiClient,
  createTenantWithKey,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";
import { TARGET_BINDINGS, writeTargetConfigs } from "./target-configs";

interface Delivery {
  kind: "service" | "workflow" | "queue";
  key: string;
  value: { instance_id?: string };
}
interface Run {
  state: string;
  idempotency_key: string;
}

describe("e2e: service-binding, Workflow and Queue targets through wrangler dev", () => {
  let server: SchedulerProcess;
  let recorder: TargetServer;
  let configs: string[];
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    recorder = await startTarget();
    configs = writeTargetConfigs(`${recorder.url}/record`);
    server = await startScheduler({
      configs,
      vars: { TARGET_BINDINGS },
    });
    ({ api } = await createTenantWithKey(server.baseUrl, { name: "e2e-targets" }));
  });

  afterAll(async () => {
    await server?.stop();
    await recorder?.close();
    for (const config of configs ?? []) rmSync(config, { force: true });
    if (server) removeState(server.stateDir);
  });

  const records = (kind: Delivery["kind"]) =>
    recorder.calls
      .filter((call) => call.path === "/record")
      .map((call) => JSON.parse(call.body) as Delivery)
      .filter((record) => record.kind === kind);

  it("fires each kind exactly once per instant", async () => {
    const targets = [
      { type: "service", binding: "BILLING", path: "/hook" },
      { type: "workflow", binding: "REPORT_FLOW", body: { report: "daily" } },
      { type: "queue", binding: "USER_EVENTS", body: { event: "tick" } },
    ] as const;
    const jobs: { id: string; kind: Delivery["kind"] }[] = [];
    for (const target of targets) {
      const res = await api<{ id: string }>("POST", "/v1/jobs", {
        name: `every-2s-${target.type}`,
        schedule: { type: "interval", every: "2s" },
        target,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      jobs.push({ id: res.body.id, kind: target.type });
    }
    const succeeded = async (jobId: string) =>
      (await api<{ data: Run[] }>("GET", `/v1/jobs/${jobId}/runs?limit=50`)).body.data.filter(
        (run) => run.state === "SUCCEEDED",
      );
    // Three instants each, then stop the schedules and let what is in flight land.
    await waitUntil(
      async () => (await Promise.all(jobs.map((job) => succeeded(job.id)))).every((r) => r.length >= 3),
      {
        timeoutMs: 60_000,
        what: "three successful runs of each job",
      },
    );
    for (const job of jobs) await api("POST", `/v1/jobs/${job.id}/pause`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const job of jobs) {
      const keys = (await succeeded(job.id)).map((run) => run.idempotency_key).sort();
      // A Workflow records once its instance has run: wait for every instance of the instants.
      const delivered = await waitUntil(
        () => {
          const mine = records(job.kind).filter((record) => record.key.startsWith(`${job.id}:`));
          return mine.length >= keys.length && mine;
        },
        { timeoutMs: 20_000, what: `${job.kind} deliveries of ${job.id}` },
      );
      expect(delivered.map((record) => record.key).sort(), job.kind).toEqual(keys);
      if (job.kind === "workflow") {
        expect(new Set(delivered.map((record) => record.value.instance_id)).size).toBe(keys.length);
      }
    }
  });

  it("refuses a binding the deployment does not list, naming target.binding", async () => {
    const res = await api<{ errors: { path: string }[] }>("POST", "/v1/jobs", {
      name: "own-binding",
      schedule: { type: "interval", every: "1m" },
      target: { type: "queue", binding: "DISPATCH_QUEUE" },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error) => error.path)).toEqual(["target.binding"]);
  });
});
