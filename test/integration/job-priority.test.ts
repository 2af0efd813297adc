// A job's `priority` (1-5, default 3): validated on create and update with every bad field named,
// shown in the job's view, kept by an update that does not name it.
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";

disarmShardsAfterEach();

interface ProblemBody {
  type: string;
  errors?: { path: string; message: string }[];
}

interface JobView {
  id: string;
  priority: number;
  version: number;
}

const paths = (problem: ProblemBody) => (problem.errors ?? []).map((error) => error.path).sort();

describe("a job's priority", () => {
  it("defaults to the middle of its range and is shown in the job's view", async () => {
    const t = await createTenantWithKey("priority");
    const created = await api<JobView>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    expect(created.status).toBe(201);
    expect(created.body.priority).toBe(3);
    const urgent = await api<JobView>("POST", "/v1/jobs", { token: t.key, body: jobBody({ priority: 1 }) });
    expect(urgent.body.priority).toBe(1);
    const patched = await api<JobView>("PATCH", `/v1/jobs/${urgent.body.id}`, {
      token: t.key,
      body: { name: "renamed" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.priority).toBe(1);
    const read = await api<JobView>("GET", `/v1/jobs/${urgent.body.id}`, { token: t.key });
    expect(read.body.priority).toBe(1);
  });

  it("refuses a priority outside 1-5 or not a whole number, naming it with the other bad fields", async () => {
    const t = await createTenantWithKey("priority-bad");
    for (const priority of [0, 6, 2.5, "high", null]) {
      const res = await api<ProblemBody>("POST", "/v1/jobs", {
        token: t.key,
        body: jobBody({ priority, name: "" }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(paths(res.body)).toEqual(["name", "priority"]);
    }
    const listed = await api<{ data: unknown[] }>("GET", "/v1/jobs", { token: t.key });
    expect(listed.body.data).toHaveLength(0);
    const job = await api<JobView>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    const patch = await api<ProblemBody>("PATCH", `/v1/jobs/${job.body.id}`, {
      token: t.key,
      body: { priority: 9 },
    });
    expect(patch.status).toBe(400);
    expect(paths(patch.body)).toEqual(["priority"]);
    const after = await api<JobView>("GET", `/v1/jobs/${job.body.id}`, { token: t.key });
    expect(after.body).toMatchObject({ priority: 3, version: job.body.version });
  });
});
