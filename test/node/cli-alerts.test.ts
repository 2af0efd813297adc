// `edgecron alerts list|ack|resolve` against a stub API that records what was sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliResult, cli } from "./cli-harness";
import { type StubServer, startStub } from "./stub-server";

function sampleAlert(overrides: Record<string, unknown> = {}) {
  return {
    id: "alt_1",
    job_id: "job_1",
    run_id: null,
    kind: "missed_run",
    message: "Job job_1 missed its instant 2026-12-01T09:00:00.000Z by 300 s",
    details: {},
    created_at: "2026-12-01T09:05:00.000Z",
    state: "open",
    delivery: "none",
    delivered_at: null,
    delivery_error: null,
    acknowledged_at: null,
    resolved_at: null,
    resolution: null,
    ...overrides,
  };
}

describe("edgecron alerts", () => {
  let stub: StubServer;
  let api: (args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    stub = await startStub();
    api = (args) => cli([...args, "--url", stub.url], { EDGECRON_TOKEN: "ek_cli" });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });

  it("lists alerts by state and kind", async () => {
    stub.reply(() => ({ status: 200, body: { data: [sampleAlert()], next_cursor: null } }));
    const result = await api(["alerts", "list", "--state", "open", "--kind", "missed_run"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^ID\s+STATE\s+KIND\s+JOB\s+CREATED AT\s+DELIVERY\s+MESSAGE\nalt_1\s+open\s+missed_run\s+job_1\s+/,
    );
    expect(stub.requests[0]?.path).toBe("/v1/alerts?state=open&kind=missed_run");
  });

  it("refuses an unknown state or kind, naming the allowed ones (exit 2, nothing sent)", async () => {
    const state = await api(["alerts", "list", "--state", "closed"]);
    expect(state.code).toBe(2);
    expect(state.stderr).toContain("--state must be one of open, acknowledged, resolved");
    const kind = await api(["alerts", "list", "--kind", "fire"]);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain("--kind must be one of dead_lettered, paused_after_failures, missed_run");
    expect(stub.requests).toHaveLength(0);
  });

  it("acknowledges and resolves an alert by id", async () => {
    stub.reply((request) => ({
      status: 200,
      body: request.path.endsWith("/ack")
        ? sampleAlert({ state: "acknowledged", acknowledged_at: "2026-12-01T09:06:00.000Z" })
        : sampleAlert({ state: "resolved", resolved_at: "2026-12-01T09:07:00.000Z", resolution: "operator" }),
    }));
    const ack = await api(["alerts", "ack", "alt_1"]);
    expect(ack.code).toBe(0);
    expect(ack.stdout).toMatch(/state\s+acknowledged\n/);
    const resolve = await api(["alerts", "resolve", "alt_1", "--json"]);
    expect(resolve.code).toBe(0);
    expect(JSON.parse(resolve.stdout)).toMatchObject({
      id: "alt_1",
      state: "resolved",
      resolution: "operator",
    });
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/alerts/alt_1/ack",
      "POST /v1/alerts/alt_1/resolve",
    ]);
  });

  it("reports another tenant's or an unknown alert as the API's 404 (exit 1)", async () => {
    stub.reply(() => ({
      status: 404,
      body: { title: "Not Found", status: 404, code: "alert_not_found", detail: "No alert alt_nope" },
    }));
    const result = await api(["alerts", "resolve", "alt_nope"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No alert alt_nope");
  });
});
