// Creating and editing jobs with binding targets, through the API and the console: which
// bindings a tenant may name (TARGET_BINDINGS in vitest.config.ts), and what is stored.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bindingTargetErrors, targetBindingAccess } from "../../src/service/target-bindings";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";

// Jobs created here stay scheduled (far in the future) on their shards.
disarmShardsAfterEach();

describe("creating a job with a binding target", () => {
  it("accepts each kind the deployment allows and returns the target as stored", async () => {
    const t = await createTenantWithKey("bindings");
    const targets = [
      { type: "service", binding: "BILLING" },
      { type: "workflow", binding: "REPORT_FLOW" },
      { type: "queue", binding: "USER_EVENTS", body: { a: 1 } },
    ];
    const stored = [];
    for (const target of targets) {
      const res = await api<{ target: unknown }>("POST", "/v1/jobs", {
        token: t.key,
        body: jobBody({ target }),
      });
      expect(res.status).toBe(201);
      stored.push(res.body.target);
    }
    expect(stored).toEqual([
      { type: "service", binding: "BILLING", path: "/", method: "POST", headers: {} },
      { type: "workflow", binding: "REPORT_FLOW" },
      { type: "queue", binding: "USER_EVENTS", body: { a: 1 } },
    ]);
  });

  it.each([
    [
      "not in TARGET_BINDINGS",
      { type: "service", binding: "PAYROLL" },
      "is not a binding this deployment allows",
    ],
    ["one of edgecron's own, even if listed", { type: "queue", binding: "DEDUP_KV" }, "is not a binding"],
    ["one of edgecron's own, not listed", { type: "queue", binding: "DISPATCH_QUEUE" }, "is not a binding"],
    [
      "allowed for other tenants only",
      { type: "service", binding: "OTHER_TENANTS_ONLY" },
      "is not a binding",
    ],
    [
      "of another kind",
      { type: "workflow", binding: "BILLING" },
      "is a service binding, not a workflow binding",
    ],
    ["not a binding name", { type: "queue", binding: "user-events" }, "upper snake case"],
  ])(
    "refuses a binding %s with a 400 naming target.binding, storing nothing",
    async (_label, target, message) => {
      const t = await createTenantWithKey("refused");
      const res = await api<{ errors: { path: string; message: string }[] }>("POST", "/v1/jobs", {
        token: t.key,
        body: jobBody({ target, name: "" }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      // The binding and the other bad field are named in one answer.
      expect(res.body.errors.map((error) => error.path).sort()).toEqual(["name", "target.binding"]);
      expect(res.body.errors.find((error) => error.path === "target.binding")?.message).toContain(message);
      const list = await api<{ data: unknown[] }>("GET", "/v1/jobs", { token: t.key });
      expect(list.body.data).toHaveLength(0);
    },
  );

  it("refuses a binding listed for targets but never declared", () => {
    // The same Worker's env with one allow-list entry more than it has bindings.
    const access = targetBindingAccess(
      { ...env, TARGET_BINDINGS: "GHOST:queue, USER_EVENTS:queue" },
      "ten_x",
    );
    const errorsFor = (binding: string) =>
      bindingTargetErrors({ target: { type: "queue", binding } }, access, ["jobs", 0]);
    expect(errorsFor("GHOST")).toEqual([
      {
        path: "jobs.0.target.binding",
        message: "is listed in TARGET_BINDINGS but not declared as a binding in wrangler.toml",
      },
    ]);
    expect(errorsFor("USER_EVENTS")).toEqual([]);
  });

  it("switches an HTTP job to a binding target with a PATCH that names the new type", async () => {
    const t = await createTenantWithKey("patch");
    const created = await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    const res = await api<{ target: unknown }>("PATCH", `/v1/jobs/${created.body.id}`, {
      token: t.key,
      body: { target: { type: "queue", binding: "USER_EVENTS" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.target).toEqual({ type: "queue", binding: "USER_EVENTS" });
  });
});

describe("the console with binding targets", () => {
  const form = (csrf: string, fields: Record<string, string>) => ({
    _csrf: csrf,
    name: `console-${crypto.randomUUID()}`,
    "schedule.type": "once",
    "schedule.at": "2099-01-01T00:00:00Z",
    "target.url": "",
    "target.method": "PUT",
    "target.headers": "",
    ...fields,
  });

  it("creates a service-binding job from the form and shows its target kind", async () => {
    const t = await createTenantWithKey("console");
    const client = new ConsoleClient();
    await client.signIn(t.key);
    const page = await client.get("/console/jobs/new");
    expect(page.text).toContain('<option value="service"');
    expect(unlabelledControls(page.text)).toEqual([]);
    const csrf = ConsoleClient.csrfOf(page.text);
    const created = await client.post(
      "/console/jobs",
      form(csrf, { "target.type": "service", "target.binding": "BILLING", "target.path": "/hook" }),
    );
    expect(created.status).toBe(303);
    const detail = await client.get(created.headers.get("location")!);
    expect(detail.text).toContain("Service binding (a Worker)");
    expect(detail.text).toContain("service BILLING: PUT /hook");
    const jobId = /job_[0-9A-Z]{26}/.exec(created.headers.get("location")!)?.[0];
    const stored = await api<{ target: unknown }>("GET", `/v1/jobs/${jobId}`, { token: t.key });
    expect(stored.body.target).toEqual({
      type: "service",
      binding: "BILLING",
      path: "/hook",
      method: "PUT",
      headers: {},
    });
    const edit = await client.get(`/console/jobs/${jobId}/edit`);
    expect(edit.text).toMatch(/<option value="service" selected/);
    expect(edit.text).toMatch(/id="f-target-binding"[^>]*value="BILLING"/);
  });

  it("shows a refused binding on the form's binding field", async () => {
    const t = await createTenantWithKey("console-refused");
    const client = new ConsoleClient();
    await client.signIn(t.key);
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const res = await client.post(
      "/console/jobs",
      form(csrf, { "target.type": "workflow", "target.binding": "DB", "target.method": "POST" }),
    );
    expect(res.status).toBe(422);
    expect(res.text).toMatch(/id="f-target-binding"[^>]*aria-invalid="true"/);
    expect(res.text).toContain("is not a binding this deployment allows");
  });
});
