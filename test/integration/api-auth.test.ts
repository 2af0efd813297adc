import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/api/app";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, BASE, createTenantWithKey } from "../helpers/api";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

describe("auth", () => {
  it("refuses a request without a token with a 401 problem", async () => {
    const res = await SELF.fetch(`${BASE}/v1/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 401, code: "unauthorized", title: "Unauthorized" });
    expect(typeof problem.type).toBe("string");
    expect(typeof problem.detail).toBe("string");
  });

  it("refuses a wrong admin token and a made-up key", async () => {
    expect((await api("GET", "/v1/me", { token: "nope" })).status).toBe(401);
    expect((await api("GET", "/v1/me", { token: `ek_${"0".repeat(64)}` })).status).toBe(401);
    expect((await api("GET", "/v1/me", { token: "test-admin-token-x" })).status).toBe(401);
  });

  it("answers /v1/me for the admin and for a tenant key", async () => {
    expect((await api("GET", "/v1/me")).body).toEqual({ role: "admin", tenant_id: null });
    const tenant = await createTenantWithKey();
    expect((await api("GET", "/v1/me", { token: tenant.key })).body).toEqual({
      role: "tenant",
      tenant_id: tenant.tenantId,
    });
  });

  it("refuses a revoked key", async () => {
    const tenant = await createTenantWithKey();
    const revoked = await api<{ id: string; revoked_at: string }>("DELETE", `/v1/api-keys/${tenant.keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.id).toBe(tenant.keyId);
    expect(Date.parse(revoked.body.revoked_at)).toBeGreaterThan(0);
    const res = await api("GET", "/v1/me", { token: tenant.key });
    expect(res.status).toBe(401);
  });

  it("refuses a key revoked after it was used, at once (the isolate's key cache forgets it)", async () => {
    const tenant = await createTenantWithKey();
    expect((await api("GET", "/v1/me", { token: tenant.key })).status).toBe(200);
    expect((await api("GET", "/v1/me", { token: tenant.key })).status).toBe(200);
    expect((await api("DELETE", `/v1/api-keys/${tenant.keyId}`)).status).toBe(200);
    const res = await api<{ detail: string }>("GET", "/v1/me", { token: tenant.key });
    expect(res.status).toBe(401);
    expect(res.body.detail).toContain("revoked");
  });

  it("fails closed when the admin secret is empty or unset", async () => {
    const tenant = await createTenantWithKey();
    for (const token of ["", undefined]) {
      const configured = { ...env, EDGECRON_ADMIN_TOKEN: token as string };
      const asAdmin = await app.request("/v1/me", { headers: { authorization: "Bearer " } }, configured);
      expect(asAdmin.status).toBe(401);
      const asTenant = await app.request(
        "/v1/me",
        { headers: { authorization: `Bearer ${tenant.key}` } },
        configured,
      );
      expect(asTenant.status).toBe(401);
      expect((await app.request("/healthz", {}, configured)).status).toBe(200);
      expect((await app.request("/v1/openapi.json", {}, configured)).status).toBe(200);
    }
  });

  it("keeps tenant keys away from admin routes", async () => {
    const tenant = await createTenantWithKey();
    const res = await api("POST", "/v1/tenants", { token: tenant.key, body: { name: "x" } });
    expect(res.status).toBe(403);
    expect((await api("GET", "/v1/tenants", { token: tenant.key })).status).toBe(403);
    expect(
      (await api("POST", "/v1/api-keys", { token: tenant.key, body: { tenant_id: tenant.tenantId } })).status,
    ).toBe(403);
  });

  it("stores keys only as SHA-256 hashes", async () => {
    const tenant = await createTenantWithKey();
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?")
      .bind(tenant.keyId)
      .first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(tenant.key);
    expect(JSON.stringify(row)).not.toContain(tenant.key.slice(3));
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tenant.key).toMatch(/^ek_[0-9a-f]{64}$/);
    expect(row?.key_prefix).toBe(tenant.key.slice(0, 11));
    const listed = await api<{ data: Record<string, unknown>[] }>(
      "GET",
      `/v1/api-keys?tenant_id=${tenant.tenantId}`,
    );
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      id: tenant.keyId,
      key_prefix: row?.key_prefix,
      revoked_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(tenant.key);
    expect(JSON.stringify(listed.body)).not.toContain(row?.key_hash as string);
  });

  it("asks the admin to name a tenant on tenant routes", async () => {
    const res = await api("GET", "/v1/jobs");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("tenant_required");
    const unknown = await api("GET", "/v1/jobs", { headers: { "edgecron-tenant": "ten_nope" } });
    expect(unknown.status).toBe(404);
  });
});

describe("tenants", () => {
  it("creates, reads, lists and edits a tenant", async () => {
    const created = await api<Record<string, string | null>>("POST", "/v1/tenants", {
      body: { name: "acme", alert_webhook_url: "https://hooks.example.com/a" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "acme", alert_webhook_url: "https://hooks.example.com/a" });
    expect(created.body.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.body.signing_secret_next).toBeNull();
    const id = created.body.id as string;
    expect((await api("GET", `/v1/tenants/${id}`)).body).toEqual(created.body);
    const list = await api<{ data: { id: string }[] }>("GET", "/v1/tenants");
    expect(list.body.data.map((t) => t.id)).toContain(id);
    const patched = await api("PATCH", `/v1/tenants/${id}`, {
      body: { name: "acme-2", alert_webhook_url: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "acme-2", alert_webhook_url: null });
  });

  it("rotates and promotes the signing secret", async () => {
    const created = await api<Record<string, string>>("POST", "/v1/tenants", { body: { name: "rot" } });
    const id = created.body.id;
    const early = await api("POST", `/v1/tenants/${id}/signing-secret/promote`);
    expect(early.status).toBe(409);
    const rotated = await api<Record<string, string>>("POST", `/v1/tenants/${id}/signing-secret/rotate`);
    expect(rotated.body.signing_secret).toBe(created.body.signing_secret);
    expect(rotated.body.signing_secret_next).toMatch(/^[0-9a-f]{64}$/);
    const promoted = await api<Record<string, string | null>>(
      "POST",
      `/v1/tenants/${id}/signing-secret/promote`,
    );
    expect(promoted.body.signing_secret).toBe(rotated.body.signing_secret_next);
    expect(promoted.body.signing_secret_next).toBeNull();
  });

  it("lets a tenant read itself but not another tenant", async () => {
    const a = await createTenantWithKey("a");
    const b = await createTenantWithKey("b");
    expect((await api("GET", `/v1/tenants/${a.tenantId}`, { token: a.key })).status).toBe(200);
    expect((await api("GET", `/v1/tenants/${b.tenantId}`, { token: a.key })).status).toBe(404);
  });

  it("validates tenant and key bodies", async () => {
    const bad = await api<{ errors: { path: string }[] }>("POST", "/v1/tenants", {
      body: { name: "", alert_webhook_url: "ftp://x", extra: true },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.path).sort()).toEqual(["alert_webhook_url", "extra", "name"]);
    const noTenant = await api("POST", "/v1/api-keys", { body: { tenant_id: "ten_missing" } });
    expect(noTenant.status).toBe(404);
    expect((await api("GET", "/v1/tenants/not-an-id")).status).toBe(404);
    expect((await api("DELETE", "/v1/api-keys/%27;DROP")).status).toBe(404);
  });
});

describe("request handling", () => {
  it("answers 400 invalid_json for malformed and truncated JSON", async () => {
    for (const body of ["{", '{"name": "x",', "not json", ""]) {
      const res = await api("POST", "/v1/tenants", { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("invalid_json");
    }
  });

  it("answers 415 for a non-JSON content type", async () => {
    const res = await api("POST", "/v1/tenants", {
      body: '{"name": "x"}',
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(415);
  });

  it("answers 413 for a body over 1 MB", async () => {
    const res = await api("POST", "/v1/tenants", { body: JSON.stringify({ name: "x".repeat(1_100_000) }) });
    expect(res.status).toBe(413);
  });

  it("never answers 5xx to junk bodies on any body route", async () => {
    const t = await createTenantWithKey();
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: { name: "junk", schedule: { type: "once", delay: "1h" }, target: { url: "https://x.test" } },
    });
    const routes: [string, string][] = [
      ["POST", "/v1/tenants"],
      ["PATCH", `/v1/tenants/${t.tenantId}`],
      ["POST", "/v1/api-keys"],
      ["POST", "/v1/schedules/preview"],
      ["POST", "/v1/jobs"],
      ["POST", "/v1/jobs/batch"],
      ["PATCH", `/v1/jobs/${job.body.id}`],
      ["POST", `/v1/jobs/${job.body.id}/backfill`],
    ];
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const junk = [
      "null",
      "42",
      '"text"',
      "[]",
      "{}",
      '{"a":',
      deep,
      '{"schedule": null, "target": 7, "jobs": {}}',
      '{"jobs": [null, 1, "x", {"schedule": {"type": "cron"}}]}',
      '{"name": {"$gt": ""}, "count": 1e400}',
      '{"from": "2026-13-45T99:99:99Z", "to": 5}',
      '{"tenant_id": ["x"]}',
      "\u0000",
      "\ufeff{}",
    ];
    for (const [method, path] of routes) {
      for (const body of junk) {
        const res = await api(method, path, { body, headers: { "edgecron-tenant": t.tenantId } });
        expect(res.status, `${method} ${path} ${body.slice(0, 40)}`).toBeLessThan(500);
      }
    }
  }, 30_000);

  it("answers unknown routes with a 404 problem", async () => {
    const res = await api("GET", "/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });
});

describe("POST /v1/schedules/preview", () => {
  const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

  it("validates count, from and the schedule, naming each field", async () => {
    const t = await createTenantWithKey();
    const schedule = { type: "cron", expr: "0 9 * * *", timezone: "UTC" };
    for (const count of [0, 1001, 2.5, "5"]) {
      const res = await api<{ errors: { path: string }[] }>("POST", "/v1/schedules/preview", {
        token: t.key,
        body: { schedule, count },
      });
      expect(res.status, String(count)).toBe(400);
      expect(paths(res.body)).toEqual(["count"]);
    }
    const bad = await api<{ errors: { path: string }[] }>("POST", "/v1/schedules/preview", {
      body: {
        schedule: { type: "cron", expr: "0 9 * * *", timezone: "Atlantis/Capital" },
        from: "yesterday",
        x: 1,
      },
    });
    expect(bad.status).toBe(400);
    expect(paths(bad.body)).toEqual(["from", "schedule.timezone", "x"]);
    const noAuth = await api("POST", "/v1/schedules/preview", { token: null, body: { schedule } });
    expect(noAuth.status).toBe(401);
  });

  it("returns fire times strictly after from, in UTC with ms", async () => {
    const t = await createTenantWithKey();
    const res = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: {
        schedule: { type: "interval", every: "1h", anchor: "2026-01-01T00:00:00Z" },
        from: "2026-01-01T00:00:00Z",
        count: 3,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.fire_times).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T02:00:00.000Z",
      "2026-01-01T03:00:00.000Z",
    ]);
    const cron = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      body: {
        schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
        from: "2026-01-01T09:00:00Z",
      },
    });
    expect(cron.body.fire_times).toHaveLength(5);
    expect(cron.body.fire_times[0]).toBe("2026-01-02T09:00:00.000Z");
    const many = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      body: { schedule: { type: "interval", every: "1s" }, count: 1000 },
    });
    expect(many.body.fire_times).toHaveLength(1000);
  });
});

describe("GET /v1/openapi.json", () => {
  it("serves an OpenAPI 3.1 document without auth, listing every route", async () => {
    const res = await api<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>("GET", "/v1/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    for (const path of [
      "/v1/jobs",
      "/v1/jobs/batch",
      "/v1/jobs/{id}",
      "/v1/jobs/{id}/trigger",
      "/v1/jobs/{id}/backfill",
      "/v1/jobs/{id}/runs",
      "/v1/runs/{id}/retry",
      "/v1/dead-letters/{id}/redrive",
      "/v1/schedules/preview",
      "/v1/stats",
      "/v1/tenants/{id}/signing-secret/rotate",
      "/v1/api-keys/{id}",
    ]) {
      expect(res.body.paths[path], path).toBeDefined();
    }
    expect(Object.keys(res.body.paths["/v1/jobs/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(res.body.components.schemas.JobCreate?.properties ?? {})).toContain("schedule");
    expect(res.body.components.schemas.Job?.properties?.next_fire_times).toBeDefined();
  });
});
