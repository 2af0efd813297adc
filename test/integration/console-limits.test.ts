// The console's Limits page: the tenant's limits (defaults and what the admin set) and the live
// state of a flow-control key, read from the real API and gate.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { acquirePermits, flowKeyGate, releasePermits } from "../../src/gate/client";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";

let tenant: TenantWithKey;
let client: ConsoleClient;

beforeAll(async () => {
  tenant = await createTenantWithKey("console-limits");
  client = new ConsoleClient();
  await client.signIn(tenant.key);
});

function rowOf(html: string, limit: string): string {
  const start = html.indexOf(`data-limit="${limit}"`);
  return start < 0 ? "" : html.slice(start, html.indexOf("</tr>", start));
}

describe("console limits", () => {
  it("shows the tenant's limits and which of them the admin set", async () => {
    await api("PUT", `/v1/tenants/${tenant.tenantId}/limits`, { body: { concurrent_calls: 7 } });
    const page = await client.get("/console/limits");
    expect(page.status).toBe(200);
    expect(unlabelledControls(page.text)).toEqual([]);
    expect(rowOf(page.text, "concurrent_calls")).toContain("<td>7</td>");
    expect(rowOf(page.text, "concurrent_calls")).toContain("set for this tenant");
    expect(rowOf(page.text, "active_jobs")).toContain("100,000");
    expect(rowOf(page.text, "active_jobs")).toContain("deployment default");
    expect(rowOf(page.text, "triggers_per_second")).toContain("no limit");
    expect(page.text).toMatch(/data-field="tenant-dispatch">Now: 0 runs waiting for these limits, 0/);
    expect(rowOf(page.text, "weight")).toContain("<td>1</td>");
    expect(rowOf(page.text, "weight")).toContain("deployment default");
  });

  it("shows the tenant's fair-share weight the admin set", async () => {
    await api("PUT", `/v1/tenants/${tenant.tenantId}/limits`, { body: { weight: 3 } });
    const page = await client.get("/console/limits");
    expect(rowOf(page.text, "weight")).toContain("<td>3</td>");
    expect(rowOf(page.text, "weight")).toContain("set for this tenant");
    await api("PUT", `/v1/tenants/${tenant.tenantId}/limits`, { body: {} });
  });

  it("shows a flow-control key's waiting runs, calls in flight and limits", async () => {
    const gate = flowKeyGate(tenant.tenantId, "console-key");
    const granted = await acquirePermits(env, gate, {
      gate,
      key: "console-key",
      tenantId: tenant.tenantId,
      limits: { rate: null, periodMs: 1_000, parallelism: 1 },
      holder: 0,
      runs: [
        { runId: "run_console_a", leaseMs: 60_000 },
        { runId: "run_console_b", leaseMs: 60_000 },
      ],
    });
    expect(granted.granted).toEqual(["run_console_a"]);
    const page = await client.get("/console/limits?key=console-key");
    expect(page.text).toContain('data-flow-key="console-key"');
    expect(page.text).toMatch(/data-field="waiting">1</);
    expect(page.text).toMatch(/data-field="in_flight">1 of 1</);
    expect(page.text).toContain("parallelism 1");
    // The key is listed with the tenant's keys, over the API and on the page.
    const list = await api<{ data: { key: string; in_flight: number }[] }>("GET", "/v1/flow-control", {
      token: tenant.key,
    });
    expect(list.body.data).toEqual([expect.objectContaining({ key: "console-key", in_flight: 1 })]);
    const listed = await client.get("/console/limits");
    expect(listed.text).toContain('data-key-row="console-key"');
    await releasePermits(env, gate, { runIds: ["run_console_a"], returnRate: false });
    const after = await api<{ in_flight: number }>("GET", "/v1/flow-control/console-key", {
      token: tenant.key,
    });
    expect(after.body.in_flight).toBe(0);
    // Another tenant's key of the same name is another gate.
    const other = await createTenantWithKey("console-limits-other");
    const foreign = await api<{ waiting: number; limits: unknown }>("GET", "/v1/flow-control/console-key", {
      token: other.key,
    });
    expect(foreign.body).toMatchObject({ waiting: 0, limits: null });
  });

  it("shows the API's problem for a bad key", async () => {
    const page = await client.get("/console/limits?key=has%20space");
    expect(page.text).toContain("validation_failed");
  });
});
