// Schedules as code through the routes (POST /v1/plans, POST /v1/applies): a file's jobs and
// calendars created, left alone when unchanged, edits elsewhere shown as drift, names the file does
// not manage refused, every bad field named before anything is written, and prune by ownership.
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, apiOk, createTenantWithKey, type TenantWithKey } from "../helpers/api";

disarmShardsAfterEach();

interface Plan {
  summary: { jobs: Record<string, number>; calendars: Record<string, number> };
  jobs: {
    action: string;
    name: string;
    id?: string;
    changes?: { path: string; before?: unknown; after?: unknown }[];
  }[];
  calendars: { action: string; name: string }[];
  notes: { name: string; message: string }[];
}
interface JobBody {
  id: string;
  name: string;
  version: number;
  status: string;
  managed_by: string | null;
}

const job = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  schedule: { type: "cron", expr: "0 3 * * *", timezone: "Europe/London" },
  target: { url: "https://example.com/hooks/report" },
  ...extra,
});
const calendar = {
  name: "uk-holidays",
  timezone: "Europe/London",
  rules: [{ type: "date", date: "2026-12-25" }],
};
const file = (jobs: unknown[], extra: Record<string, unknown> = {}) => ({
  managed_by: "schedules.yaml",
  calendars: [calendar],
  jobs,
  ...extra,
});

async function jobsNamed(tenant: TenantWithKey, name: string): Promise<JobBody[]> {
  const page = await apiOk<{ data: JobBody[] }>(
    "GET",
    `/v1/jobs?name=${encodeURIComponent(name)}`,
    tenant.key,
  );
  return page.data;
}

describe("a schedule file applied through the API", () => {
  let tenant: TenantWithKey;
  beforeAll(async () => {
    tenant = await createTenantWithKey("sac");
  });

  it("creates, re-applies as a no-op, shows an edit elsewhere as drift, and prunes only what it manages", async () => {
    const first = file([
      job("report", { calendars: ["uk-holidays"] }),
      job("sync", { schedule: { type: "interval", every: "15m" }, paused: true }),
    ]);
    const plan = await apiOk<Plan>("POST", "/v1/plans", tenant.key, first);
    expect(plan.summary.jobs).toMatchObject({ create: 2, update: 0, delete: 0 });
    expect(plan.summary.calendars).toMatchObject({ create: 1 });
    expect(await jobsNamed(tenant, "report")).toEqual([]);

    const applied = await apiOk<Plan & { applied: true }>("POST", "/v1/applies", tenant.key, first);
    expect(applied.jobs.map((entry) => entry.action)).toEqual(["create", "create"]);
    const [report] = await jobsNamed(tenant, "report");
    expect(report).toMatchObject({ managed_by: "schedules.yaml", status: "ACTIVE" });
    expect((await jobsNamed(tenant, "sync"))[0]?.status).toBe("PAUSED");

    const again = await apiOk<Plan>("POST", "/v1/applies", tenant.key, first);
    expect(again.summary.jobs).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 2 });
    expect(again.summary.calendars).toMatchObject({ create: 0, update: 0, unchanged: 1 });
    expect((await jobsNamed(tenant, "report"))[0]?.version).toBe(report?.version);

    // An edit through the API (as the console makes it) is drift: the next plan shows the field.
    await apiOk("PATCH", `/v1/jobs/${report?.id}`, tenant.key, {
      schedule: { type: "cron", expr: "0 4 * * *", timezone: "Europe/London" },
    });
    const drift = await apiOk<Plan>("POST", "/v1/plans", tenant.key, first);
    expect(drift.jobs).toEqual([
      {
        action: "update",
        index: 0,
        name: "report",
        id: report?.id,
        changes: [{ path: "schedule.expr", before: "0 4 * * *", after: "0 3 * * *" }],
      },
    ]);

    // The file drops `sync`: kept without prune (a note says so), deleted with it.
    const second = file([job("report", { calendars: ["uk-holidays"] })]);
    const kept = await apiOk<Plan>("POST", "/v1/plans", tenant.key, second);
    expect(kept.summary.jobs.delete).toBe(0);
    expect(kept.notes.map((note) => note.name)).toContain("sync");
    await api("POST", "/v1/jobs", { token: tenant.key, body: job("by-hand") });
    const pruned = await apiOk<Plan>("POST", "/v1/applies", tenant.key, { ...second, prune: true });
    expect(pruned.jobs.map((entry) => [entry.action, entry.name])).toEqual([
      ["update", "report"],
      ["delete", "sync"],
    ]);
    expect(await jobsNamed(tenant, "sync")).toEqual([]);
    expect(await jobsNamed(tenant, "by-hand")).toHaveLength(1);

    // Without calendars nor jobs, prune takes the calendar too.
    const empty = await apiOk<Plan>("POST", "/v1/applies", tenant.key, {
      managed_by: "schedules.yaml",
      prune: true,
    });
    expect(empty.summary.jobs.delete).toBe(1);
    expect(empty.calendars).toEqual([{ action: "delete", name: "uk-holidays" }]);
  });

  it("refuses the whole file naming every bad field, and writes nothing", async () => {
    const other = await createTenantWithKey("sac-bad");
    const bad = file([
      job("ok"),
      job("twice"),
      job("twice"),
      job("bad-cron", { schedule: { type: "cron", expr: "61 * * * *" } }),
      job("bad-target", { target: { url: "not a url" }, calendars: ["nope"] }),
      job("bad-paused", { paused: "yes", managed_by: "x" }),
    ]);
    const res = await api<{ code: string; errors: { path: string }[] }>("POST", "/v1/applies", {
      token: other.key,
      body: bad,
    });
    expect(res.status).toBe(400);
    const paths = res.body.errors.map((error) => error.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "jobs.1.name",
        "jobs.2.name",
        "jobs.3.schedule.expr",
        "jobs.4.target.url",
        "jobs.4.calendars.0",
        "jobs.5.paused",
        "jobs.5.managed_by",
      ]),
    );
    expect(await jobsNamed(other, "ok")).toEqual([]);
    const calendars = await apiOk<{ data: unknown[] }>("GET", "/v1/calendars", other.key);
    expect(calendars.data).toEqual([]);
  });

  it("refuses a name it does not manage unless told to adopt it", async () => {
    const other = await createTenantWithKey("sac-adopt");
    const created = await apiOk<JobBody>("POST", "/v1/jobs", other.key, job("legacy"));
    const res = await api<{ code: string; errors: { path: string; message: string }[] }>(
      "POST",
      "/v1/plans",
      {
        token: other.key,
        body: { managed_by: "schedules.yaml", jobs: [job("legacy")] },
      },
    );
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("schedule_file_conflict");
    expect(res.body.errors[0]?.path).toBe("jobs.0.name");
    const adopted = await apiOk<Plan>("POST", "/v1/applies", other.key, {
      managed_by: "schedules.yaml",
      adopt: true,
      jobs: [job("legacy")],
    });
    expect(adopted.jobs[0]).toMatchObject({ action: "adopt", id: created.id });
    expect((await jobsNamed(other, "legacy"))[0]?.managed_by).toBe("schedules.yaml");
  });
  it("prunes, in a page of a big file, only the managed jobs of the page's name range", async () => {
    const other = await createTenantWithKey("sac-pages");
    const names = ["a-1", "a-2", "m-1", "m-2"];
    await apiOk("POST", "/v1/applies", other.key, {
      managed_by: "big.yaml",
      jobs: names.map((name) => job(name)),
    });
    // The file drops a-2 and m-2; the page of [null, "m") speaks only for a-*.
    const page = await apiOk<Plan>("POST", "/v1/applies", other.key, {
      managed_by: "big.yaml",
      prune: true,
      scope: { calendars: false, names: { from: null, to: "m" } },
      jobs: [job("a-1")],
    });
    expect(page.jobs.map((entry) => [entry.action, entry.name])).toEqual([["delete", "a-2"]]);
    expect(await jobsNamed(other, "m-2")).toHaveLength(1);
    const outside = await api<{ errors: { path: string }[] }>("POST", "/v1/plans", {
      token: other.key,
      body: { managed_by: "big.yaml", scope: { names: { from: null, to: "m" } }, jobs: [job("m-1")] },
    });
    expect([outside.status, outside.body.errors.map((error) => error.path)]).toEqual([400, ["jobs.0.name"]]);
  });
  it("refuses, on the tenant's job limit, before it writes the file's calendars", async () => {
    const other = await createTenantWithKey("sac-limit");
    await apiOk("PUT", `/v1/tenants/${other.tenantId}/limits`, "test-admin-token", { active_jobs: 1 });
    const res = await api<{ code: string }>("POST", "/v1/applies", {
      token: other.key,
      body: file([job("one"), job("two")]),
    });
    expect([res.status, res.body.code]).toEqual([429, "tenant_limit_exceeded"]);
    const calendars = await apiOk<{ data: unknown[] }>("GET", "/v1/calendars", other.key);
    expect(calendars.data).toEqual([]);
  });
});
