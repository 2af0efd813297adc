// The error catalogue (src/core/common/errors.ts, tabled in docs/API.md) against what the routes answer:
// for each code a request that meets it, answered with the code, the catalogue's status, and a
// route definition (the OpenAPI document) that lists the code. A code not provoked here says where
// it is, so a new code without either fails this file.
import { describe, expect, it } from "vitest";
import { app } from "../../src/api/app";
import { ERROR_CODES, type ErrorCode } from "../../src/core/common/errors";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody, type RequestOptions } from "../helpers/api";

disarmShardsAfterEach();

/** Codes a single request cannot meet here, and where a test meets them instead. */
const ELSEWHERE: Partial<Record<ErrorCode, string>> = {
  http_error:
    "a router HTTPException of a status src/api/http/error-responses.ts does not map: no route throws one",
  internal_error: "the catch-all for a bug: no request is meant to reach it",
  shard_unavailable:
    "a shard that does not answer: test/unit/policies.test.ts, the client's test/node suites",
  job_not_synced: "a job database ahead of its shard: test/unit/policies.test.ts",
  run_not_retryable: "a run that has ended: test/integration/api-flow.test.ts, operations.test.ts",
  attempt_superseded: "a late report of a retried attempt: test/integration/long-running.test.ts",
  already_redriven: "a dead letter run again: test/integration/api-history.test.ts, console-alerts.test.ts",
  not_created_by_original_request:
    "a per-item result of a batch replay, never a route's answer (src/api/v1/routes/job-batch.ts); not provoked by any test yet",
  auth_throttled:
    "20 failed authentications from one address or key prefix: test/integration/auth-throttle.test.ts",
  tenant_limit_exceeded: "a tenant over its limits: test/integration/tenant-limits.test.ts",
  schedule_file_conflict:
    "a schedule file naming a job it does not manage, without --adopt: test/integration/schedule-files.test.ts",
};

interface Route {
  method: string;
  pattern: RegExp;
  codes: string;
}
const ROUTES: Route[] = app.openAPIRegistry.definitions.flatMap((definition) =>
  definition.type === "route"
    ? [
        {
          method: definition.route.method.toUpperCase(),
          pattern: new RegExp(`^${definition.route.path.replaceAll(/\{[^}]+\}/g, "[^/]+")}$`),
          codes: Object.values(definition.route.responses)
            .map((response) => ("description" in response ? String(response.description) : ""))
            .join(" "),
        },
      ]
    : [],
);
/** Answered before any route runs: no definition lists them. */
const ROUTER_CODES: ErrorCode[] = ["not_found", "method_not_allowed", "unauthorized"];

const met = new Set<ErrorCode>();

async function expectCode(code: ErrorCode, method: string, path: string, options: RequestOptions = {}) {
  const res = await api<{ code?: string; status?: number }>(method, path, options);
  expect({ code: res.body?.code, status: res.status }, `${method} ${path}`).toEqual({
    code,
    status: ERROR_CODES[code].status,
  });
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  if (!ROUTER_CODES.includes(code)) {
    const bare = path.split("?")[0] ?? path;
    const route = ROUTES.find((candidate) => candidate.method === method && candidate.pattern.test(bare));
    expect(route?.codes ?? "(no definition)", `${method} ${bare} documents ${code}`).toContain(`\`${code}\``);
  }
  met.add(code);
}

describe("the error catalogue against the routes' answers", () => {
  it("meets each code where the catalogue says, with its status", async () => {
    const { key: token, tenantId } = await createTenantWithKey("catalogue");
    const asTenant = { token };
    await expectCode("validation_failed", "POST", "/v1/jobs", { token, body: jobBody({ name: "" }) });
    await expectCode("invalid_json", "POST", "/v1/jobs", { token, body: "{" });
    await expectCode("invalid_cursor", "GET", "/v1/jobs?cursor=not-a-cursor", asTenant);
    await expectCode("tenant_required", "GET", "/v1/jobs");
    await expectCode("unauthorized", "GET", "/v1/jobs", { token: "ek_not_a_key" });
    await expectCode("forbidden", "POST", "/v1/tenants", { token, body: { name: "mine" } });
    await expectCode("not_found", "GET", "/v1/no-such-route", asTenant);
    await expectCode("method_not_allowed", "PUT", "/v1/jobs", asTenant);
    await expectCode("tenant_not_found", "GET", "/v1/tenants/ten_nope");
    await expectCode("api_key_not_found", "DELETE", "/v1/api-keys/key_nope");
    await expectCode("job_not_found", "GET", "/v1/jobs/job_nope", asTenant);
    await expectCode("run_not_found", "GET", "/v1/runs/run_nope", asTenant);
    await expectCode("dead_letter_not_found", "POST", "/v1/dead-letters/dl_nope/redrive", asTenant);
    await expectCode("alert_not_found", "POST", "/v1/alerts/alert_nope/ack", asTenant);
    await expectCode("calendar_not_found", "GET", "/v1/calendars/nope", asTenant);
    await expectCode("bulk_operation_not_found", "GET", "/v1/jobs/bulk/bulk_nope", asTenant);
    await expectCode("no_next_signing_secret", "POST", `/v1/tenants/${tenantId}/signing-secret/promote`);
    await expectCode("unsupported_media_type", "POST", "/v1/jobs", {
      token,
      body: JSON.stringify(jobBody()),
      headers: { "content-type": "text/plain" },
    });
    await expectCode("payload_too_large", "POST", "/v1/jobs", {
      token,
      body: jobBody({ metadata: { big: "x".repeat(2_000_000) } }),
    });
    await expectCode("invalid_run_token", "POST", "/v1/runs/run_nope/heartbeat", {
      token: null,
      headers: { "edgecron-run-token": "forged" },
    });

    const calendar = { name: "holidays", timezone: "UTC", rules: [{ type: "date", date: "2099-12-25" }] };
    expect((await api("POST", "/v1/calendars", { token, body: calendar })).status).toBe(201);
    await expectCode("calendar_exists", "POST", "/v1/calendars", { token, body: calendar });
    const hourly = { type: "interval", every: "1m", anchor: "2026-01-01T00:00:00Z" };
    const job = (
      await api<{ id: string }>("POST", "/v1/jobs", {
        token,
        body: jobBody({ schedule: hourly, calendars: ["holidays"] }),
        headers: { "idempotency-key": "catalogue-1" },
      })
    ).body;
    await expectCode("calendar_in_use", "DELETE", "/v1/calendars/holidays", asTenant);
    await expectCode("idempotency_conflict", "POST", "/v1/jobs", {
      token,
      body: jobBody({ schedule: hourly }),
      headers: { "idempotency-key": "catalogue-1" },
    });
    await expectCode("version_conflict", "PATCH", `/v1/jobs/${job.id}`, {
      token,
      body: { name: "renamed" },
      headers: { "if-match": "99", "content-type": "application/merge-patch+json" },
    });
    const range = { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z" };
    await expectCode("too_many_instants", "POST", `/v1/jobs/${job.id}/backfill`, { token, body: range });
    expect((await api("POST", `/v1/jobs/${job.id}/pause`, asTenant)).status).toBe(200);
    const shortRange = { from: "2026-01-01T00:00:00Z", to: "2026-01-01T00:10:00Z" };
    await expectCode("job_not_active", "POST", `/v1/jobs/${job.id}/backfill`, { token, body: shortRange });
    expect((await api("DELETE", `/v1/jobs/${job.id}`, asTenant)).status).toBeLessThan(300);
    await expectCode("job_deleted", "PATCH", `/v1/jobs/${job.id}`, {
      token,
      body: { name: "renamed" },
      headers: { "content-type": "application/merge-patch+json" },
    });

    const suspended = await createTenantWithKey("catalogue-suspended");
    expect((await api("POST", `/v1/tenants/${suspended.tenantId}/suspend`)).status).toBe(200);
    await expectCode("tenant_suspended", "POST", "/v1/jobs", { token: suspended.key, body: jobBody() });
  });

  it("leaves no code both unmet and unaccounted for", () => {
    const unaccounted = Object.keys(ERROR_CODES).filter(
      (code) => !met.has(code as ErrorCode) && !(code in ELSEWHERE),
    );
    expect(unaccounted).toEqual([]);
  });
});
