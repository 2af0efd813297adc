// Every answer matches the route definition it came from: the status is one the definition
// documents, and the body parses with the schema documented for that status. The handlers
// return plain Responses (see src/api/v1/openapi/define.ts), so this is what holds them to the
// document that /v1/openapi.json serves and clients generate from.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { app } from "../../src/api/app";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody, type RequestOptions } from "../helpers/api";
import { seedAlert } from "../helpers/seed";

// The walk leaves a scheduled job (and its triggered and backfilled runs) on its shard.
disarmShardsAfterEach();

interface Documented {
  method: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema: z.ZodType }> }>;
}

const ROUTES: Documented[] = app.openAPIRegistry.definitions.flatMap((definition) =>
  definition.type === "route"
    ? [
        {
          method: definition.route.method.toUpperCase(),
          pattern: new RegExp(`^${definition.route.path.replaceAll(/\{[^}]+\}/g, "[^/]+")}$`),
          responses: definition.route.responses as Documented["responses"],
        },
      ]
    : [],
);

const checked = new Set<string>();

/** Sends the request and checks the answer against its route's definition. */
async function call<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}) {
  const res = await api<T>(method, path, options);
  const bare = path.split("?")[0] ?? path;
  const route = ROUTES.find((candidate) => candidate.method === method && candidate.pattern.test(bare));
  expect(route, `${method} ${bare} has a definition`).toBeDefined();
  const response = route?.responses[String(res.status)];
  expect(response, `${method} ${bare} documents ${res.status}`).toBeDefined();
  const [mediaType, content] = Object.entries(response?.content ?? {})[0] ?? [];
  expect(res.headers.get("content-type") ?? "").toContain(mediaType ?? "(none)");
  const parsed = content?.schema.safeParse(res.body);
  expect(parsed?.error?.issues ?? [], `${method} ${bare} ${res.status}`).toEqual([]);
  checked.add(`${method} ${route?.pattern.source} ${res.status}`);
  return res;
}

describe("every answer matches its route definition", () => {
  it("for each route's success and the errors a client meets first", async () => {
    await call("GET", "/healthz", { token: null });
    await call("GET", "/v1/openapi.json", { token: null });
    await call("GET", "/v1/me", { token: null });
    await call("GET", "/v1/me");
    const tenant = await call<{ id: string }>("POST", "/v1/tenants", { body: { name: "contract" } });
    await call("POST", "/v1/tenants", { body: { name: "" } });
    await call("GET", "/v1/tenants");
    await call("GET", `/v1/tenants/${tenant.body.id}`);
    await call("PATCH", `/v1/tenants/${tenant.body.id}`, { body: { name: "contract-2" } });
    await call("POST", `/v1/tenants/${tenant.body.id}/signing-secret/promote`);
    await call("POST", `/v1/tenants/${tenant.body.id}/signing-secret/rotate`);
    await call("POST", `/v1/tenants/${tenant.body.id}/signing-secret/promote`);
    const key = await call<{ id: string }>("POST", "/v1/api-keys", { body: { tenant_id: tenant.body.id } });
    await call("GET", `/v1/api-keys?tenant_id=${tenant.body.id}`);
    await call("DELETE", `/v1/api-keys/${key.body.id}`);
    await call("DELETE", "/v1/api-keys/key_nope");

    const { key: token, tenantId } = await createTenantWithKey("contract");
    await call("GET", "/v1/tenants", { token });
    await call("POST", "/v1/schedules/preview", {
      token,
      body: { schedule: { type: "cron", expr: "30 2 * * *", timezone: "America/New_York" }, count: 3 },
    });
    const cron = { type: "cron", expr: "0 * * * *", timezone: "UTC" };
    const job = await call<{ id: string }>("POST", "/v1/jobs", {
      token,
      body: jobBody({ schedule: cron }),
      headers: { "idempotency-key": "contract-1" },
    });
    await call("POST", "/v1/jobs", { token, body: jobBody(), headers: { "idempotency-key": "contract-1" } });
    await call("POST", "/v1/jobs", { token, body: "{", headers: { "content-type": "application/json" } });
    await call("POST", "/v1/jobs", { token, body: "x", headers: { "content-type": "text/plain" } });
    await call("POST", "/v1/jobs/batch", { token, body: { jobs: [jobBody(), { name: "" }] } });
    await call("GET", "/v1/jobs?status=ACTIVE&limit=2", { token });
    await call("GET", "/v1/jobs?status=NOPE", { token });
    await call("GET", "/v1/jobs?cursor=nope", { token });
    await call("GET", `/v1/jobs/${job.body.id}?next=3`, { token });
    await call("GET", "/v1/jobs/job_nope", { token });
    await call("PATCH", `/v1/jobs/${job.body.id}`, { token, body: { name: "renamed", version: 1 } });
    await call("PATCH", `/v1/jobs/${job.body.id}`, { token, body: { name: "again", version: 1 } });
    await call("POST", `/v1/jobs/${job.body.id}/pause`, { token });
    await call("POST", `/v1/jobs/${job.body.id}/resume`, { token });
    const run = await call<{ run_id: string }>("POST", `/v1/jobs/${job.body.id}/trigger`, { token });
    await call("POST", `/v1/jobs/${job.body.id}/backfill`, {
      token,
      body: { from: "2026-01-01T00:00:00Z", to: "2026-01-01T02:00:00Z" },
    });
    await call("POST", `/v1/jobs/${job.body.id}/backfill`, {
      token,
      body: { from: "2020-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
    });
    await call("GET", `/v1/jobs/${job.body.id}/runs?limit=5`, { token });
    await call("GET", "/v1/runs?state=SCHEDULED", { token });
    await call("GET", `/v1/runs/${run.body.run_id}`, { token });
    await call("POST", `/v1/runs/${run.body.run_id}/retry`, { token });
    await call("GET", "/v1/runs/run_nope", { token });
    await call("GET", "/v1/dead-letters", { token });
    await call("POST", "/v1/dead-letters/dl_nope/redrive", { token });
    await call("GET", "/v1/alerts", { token });
    const alertId = await seedAlert({ tenantId });
    await call("GET", "/v1/alerts?state=open&kind=missed_run", { token });
    await call("POST", `/v1/alerts/${alertId}/ack`, { token });
    await call("POST", `/v1/alerts/${alertId}/resolve`, { token });
    await call("POST", "/v1/alerts/alt_nope/resolve", { token });
    await call("GET", "/v1/stats", { token });
    await call("GET", "/v1/jobs", {});
    await call("DELETE", `/v1/jobs/${job.body.id}`, { token });
    await call("POST", `/v1/jobs/${job.body.id}/pause`, { token });
    expect(checked.size).toBeGreaterThanOrEqual(47);
  });
});
