// No filter can widen: an empty value ({}, "", [], null) in any filter of a bulk or listing route,
// on /v1 and /v2, is a 400 naming it, and nothing is changed. A route at a time.
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody, type TenantWithKey } from "../helpers/api";
import { v2 } from "../helpers/qstash";

disarmShardsAfterEach();

interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

let tenant: TenantWithKey;
const jobIds: string[] = [];

beforeAll(async () => {
  tenant = await createTenantWithKey("filters");
  for (const team of ["a", "b", "c"]) {
    const created = await api<{ id: string }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: jobBody({ name: `filtered-${team}`, metadata: { team } }),
    });
    expect(created.status).toBe(201);
    jobIds.push(created.body.id);
  }
  const message = await v2(
    "POST",
    "/v2/publish/https://example.com/hook",
    tenant.key,
    { "upstash-delay": "1d" },
    "x",
  );
  expect(message.status).toBe(201);
});

async function activeJobs(): Promise<number> {
  const list = await api<{ data: { status: string }[] }>("GET", "/v1/jobs?limit=200", { token: tenant.key });
  return list.body.data.filter((job) => job.status === "ACTIVE").length;
}

describe("POST /v1/jobs/bulk", () => {
  it.each([
    [{ metadata: {} }, "filter.metadata"],
    [{ metadata: { team: "" } }, "filter.metadata.team"],
    [{ metadata: { team: null } }, "filter.metadata.team"],
    [{ metadata: [] }, "filter.metadata"],
    [{ metadata: null }, "filter.metadata"],
    [{ metadata: "" }, "filter.metadata"],
    [{ name_prefix: "" }, "filter.name_prefix"],
    [{ status: "" }, "filter.status"],
    [{ created_before: "" }, "filter.created_before"],
    [{ name_prefix: "filtered-", metadata: {} }, "filter.metadata"],
  ])("refuses the filter %j, naming %s, and deletes nothing", async (filter, path) => {
    const before = await activeJobs();
    const res = await api<Problem>("POST", "/v1/jobs/bulk", {
      token: tenant.key,
      body: { action: "delete", filter },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((error) => error.path)).toContain(path);
    expect(await activeJobs()).toBe(before);
  });

  it("refuses a null or empty filter without all: true", async () => {
    for (const filter of [null, {}]) {
      const res = await api<Problem>("POST", "/v1/jobs/bulk", {
        token: tenant.key,
        body: { action: "pause", filter },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((error) => error.path)).toEqual(["filter"]);
    }
  });

  it("matches metadata keys as data: __proto__ and constructor select only jobs that have them", async () => {
    for (const metadata of [JSON.parse('{"__proto__": "x"}'), { constructor: "x" }]) {
      const res = await api<{ matched: number }>("POST", "/v1/jobs/bulk", {
        token: tenant.key,
        body: JSON.stringify({ action: "pause", filter: { metadata } }),
      });
      expect(res.status).toBe(200);
      expect(res.body.matched).toBe(0);
    }
  });

  it("combines fields with AND, and a metadata filter selects only its jobs", async () => {
    const res = await api<{ matched: number }>("POST", "/v1/jobs/bulk", {
      token: tenant.key,
      body: { action: "pause", filter: { name_prefix: "filtered-", metadata: { team: "b" } } },
    });
    expect(res.body.matched).toBe(1);
    const resumed = await api<{ matched: number }>("POST", "/v1/jobs/bulk", {
      token: tenant.key,
      body: { action: "resume", filter: { metadata: { team: "b" } } },
    });
    expect(resumed.body.matched).toBe(1);
  });
});

describe("/v1 lists", () => {
  it.each([
    ["/v1/jobs?name=", "name"],
    ["/v1/jobs?status=", "status"],
    ["/v1/runs?job_id=", "job_id"],
    ["/v1/runs?state=", "state"],
    ["/v1/dead-letters?job_id=", "job_id"],
    ["/v1/alerts?state=", "state"],
    ["/v1/alerts?kind=", "kind"],
  ])("GET %s is a 400 naming %s", async (path, name) => {
    const res = await api<Problem>("GET", path, { token: tenant.key });
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((error) => error.path)).toEqual([name]);
  });

  it("GET /v1/api-keys?tenant_id= is a 400 naming tenant_id", async () => {
    const res = await api<Problem>("GET", "/v1/api-keys?tenant_id=");
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((error) => error.path)).toEqual(["tenant_id"]);
  });
});

describe("/v2 bulk and list routes", () => {
  it.each([
    ["DELETE", "/v2/messages?label="],
    ["DELETE", "/v2/messages?url="],
    ["DELETE", "/v2/messages?flowControlKey="],
    ["DELETE", "/v2/messages?messageIds="],
    ["DELETE", "/v2/messages?topicName="],
    ["GET", "/v2/dlq?url="],
    ["DELETE", "/v2/dlq?label="],
    ["POST", "/v2/dlq/retry?responseStatus="],
    ["DELETE", "/v2/dlq?dlqIds="],
    ["GET", "/v2/events?state="],
    ["GET", "/v2/logs?messageId="],
    ["GET", "/v2/workflows/events?workflowRunId="],
    ["GET", "/v2/workflows/events?workflowUrl="],
    ["GET", "/v2/workflows/events?state="],
    ["DELETE", "/v2/workflows/runs?workflowRunIds="],
    ["DELETE", "/v2/workflows/runs?workflowRunIds=wfr_1,,wfr_2"],
    ["GET", "/v2/dlq?source=workflow&workflowRunId="],
    ["POST", "/v2/workflows/dlq/resume?workflowUrl="],
    ["DELETE", "/v2/workflows/dlq?workflowCreatedAt="],
  ])("%s %s is a 400 naming the filter, and cancels nothing", async (method, path) => {
    const name = [...new URL(path, "http://x").searchParams.keys()].at(-1) as string;
    const before = await activeJobs();
    const res = await v2(method, path, tenant.key);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(name);
    expect(await activeJobs()).toBe(before);
  });
});
