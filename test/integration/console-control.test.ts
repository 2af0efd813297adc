// The console's control actions (src/console/routes/control.tsx): a bulk action on the jobs a filter
// shows, and the admin's tenant suspension on the Limits page, through the real API in-process.
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, api, createTenantWithKey, jobBody, type TenantWithKey } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";

disarmShardsAfterEach();

let tenant: TenantWithKey;

beforeAll(async () => {
  tenant = await createTenantWithKey("console-control");
});

const statusOf = async (id: string) =>
  (await api<{ status: string }>("GET", `/v1/jobs/${id}`, { token: tenant.key })).body.status;

describe("console control actions", () => {
  it("pauses every job the name filter matches, and only those", async () => {
    const ids: string[] = [];
    for (const name of ["runaway-1", "runaway-2", "keep-1"]) {
      ids.push(
        (await api<{ id: string }>("POST", "/v1/jobs", { token: tenant.key, body: jobBody({ name }) })).body
          .id,
      );
    }
    const client = new ConsoleClient();
    await client.signIn(tenant.key);
    const unfiltered = await client.get("/console/jobs");
    expect(unfiltered.text).not.toContain("data-bulk-actions");
    const page = await client.get("/console/jobs?name=runaway-");
    expect(page.text).toContain("data-bulk-actions");
    expect(unlabelledControls(page.text)).toEqual([]);
    const res = await client.post("/console/jobs/bulk/pause", {
      _csrf: ConsoleClient.csrfOf(page.text),
      name: "runaway-",
      confirmed: "1",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toContain("notice=bulk_pause&count=2");
    expect(await statusOf(ids[0] as string)).toBe("PAUSED");
    expect(await statusOf(ids[1] as string)).toBe("PAUSED");
    expect(await statusOf(ids[2] as string)).toBe("ACTIVE");
    const after = await client.get(res.headers.get("location")?.replace(/^https?:\/\/[^/]+/, "") ?? "");
    expect(after.text).toContain("2 matching job(s) are paused");
  });

  it.each([
    [{ name: "", status: "" }, ["name", "status"]],
    [{ name: "" }, ["name"]],
    [{ status: "" }, ["status"]],
    [{ name: "stop-", status: "BOGUS" }, ["status"]],
  ])(
    "refuses a bulk filter with an empty or unknown field %j, naming it, and changes nothing",
    async (fields, named) => {
      const id = (
        await api<{ id: string }>("POST", "/v1/jobs", {
          token: tenant.key,
          body: jobBody({ name: "stop-1" }),
        })
      ).body.id;
      const client = new ConsoleClient();
      await client.signIn(tenant.key);
      const page = await client.get("/console/jobs?name=stop-");
      const res = await client.post("/console/jobs/bulk/delete", {
        _csrf: ConsoleClient.csrfOf(page.text),
        ...fields,
        confirmed: "1",
      });
      expect(res.status).toBe(400);
      for (const field of named) expect(res.text).toContain(`${field}: must`);
      expect(await statusOf(id)).toBe("ACTIVE");
    },
  );

  it("lets the admin suspend and unsuspend the tenant from the Limits page", async () => {
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    await admin.post("/console/tenant", {
      _csrf: await admin.csrf(),
      tenant: tenant.tenantId,
      next: "/console/limits",
    });
    const page = await admin.get("/console/limits");
    expect(page.text).toContain('data-field="tenant-suspension"');
    expect(page.text).toContain("Suspend tenant");
    const res = await admin.post("/console/tenant/suspend", {
      _csrf: ConsoleClient.csrfOf(page.text),
      tenant_id: tenant.tenantId,
      confirmed: "1",
    });
    expect(res.status).toBe(303);
    const suspended = await admin.get("/console/limits?notice=suspended");
    expect(suspended.text).toContain("Tenant suspended");
    expect(suspended.text).toContain("Unsuspend tenant");
    const create = await api<{ code: string }>("POST", "/v1/jobs", { token: tenant.key, body: jobBody() });
    expect(create.body.code).toBe("tenant_suspended");
    await admin.post("/console/tenant/unsuspend", {
      _csrf: ConsoleClient.csrfOf(suspended.text),
      tenant_id: tenant.tenantId,
      confirmed: "1",
    });
    expect((await api("POST", "/v1/jobs", { token: tenant.key, body: jobBody() })).status).toBe(201);
    // A tenant's own session sees no suspension control.
    const own = new ConsoleClient();
    await own.signIn(tenant.key);
    expect((await own.get("/console/limits")).text).not.toContain("tenant-suspension");
  });
});
