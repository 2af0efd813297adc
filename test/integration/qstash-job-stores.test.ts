// The /v2 surface on the split job store: a schedule's job lives in exactly the job database its
// (tenant, schedule id) hashes to and is a /v1 job like any other; /v2 creates (publish, enqueue,
// batch, schedules) are admitted by the tenant's limits before anything is stored.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { jobStores } from "../../src/db/databases";
import { scheduleDatabaseIndex } from "../../src/db/qstash-schedules";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, BASE, createTenantWithKey } from "../helpers/api";
import { countJobs } from "../helpers/job-databases";

disarmShardsAfterEach();

const DESTINATION = "https://hooks.example.com/v2-stores";

async function v2(token: string, path: string, headers: Record<string, string>, body = "payload") {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/plain", ...headers },
    body,
  });
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as { error?: string },
  };
}

/** The indexes of the job databases holding a row for this job id. */
async function databasesHolding(jobId: string): Promise<number[]> {
  const found = await Promise.all(
    jobStores(env).homes.map(async (db, index) =>
      (await db.prepare("SELECT 1 FROM jobs WHERE id = ?").bind(jobId).first()) === null ? [] : [index],
    ),
  );
  return found.flat();
}

interface JobList {
  data: { id: string; qstash?: { schedule_id?: string } }[];
}

describe("a /v2 schedule's job", () => {
  it("is listed by GET /v1/jobs and lives in exactly the database its schedule id hashes to", async () => {
    const t = await createTenantWithKey("v2-schedule-home");
    const stores = jobStores(env);
    // Ids until each database holds two (the tenant id is new each run, so is the spread).
    const scheduleIds: string[] = [];
    const perDatabase = [0, 0];
    for (let n = 0; perDatabase.some((count) => count < 2); n++) {
      const scheduleId = `home-${n}`;
      const index = scheduleDatabaseIndex(stores, t.tenantId, scheduleId);
      if ((perDatabase[index] ?? 0) >= 2) continue;
      perDatabase[index] = (perDatabase[index] ?? 0) + 1;
      scheduleIds.push(scheduleId);
    }
    for (const scheduleId of scheduleIds) {
      const created = await v2(t.key, `/v2/schedules/${DESTINATION}`, {
        "upstash-cron": "0 3 * * *",
        "upstash-schedule-id": scheduleId,
      });
      expect(created.status).toBe(200);
    }
    const jobs = await api<JobList>("GET", "/v1/jobs", { token: t.key });
    // Both sides sorted alike: the ids run past home-9 on some tenants, and "home-12" < "home-2".
    expect(jobs.body.data.map((job) => job.qstash?.schedule_id).sort()).toEqual([...scheduleIds].sort());
    for (const job of jobs.body.data) {
      const home = scheduleDatabaseIndex(stores, t.tenantId, job.qstash?.schedule_id ?? "");
      expect(await databasesHolding(job.id)).toEqual([home]);
      expect((await api("GET", `/v1/jobs/${job.id}`, { token: t.key })).status).toBe(200);
    }
    const legacy = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE tenant_id = ?")
      .bind(t.tenantId)
      .first<{ n: number }>();
    expect(legacy?.n).toBe(0);
    const listed = await api<{ scheduleId: string }[]>("GET", "/v2/schedules", { token: t.key });
    expect(listed.body.map((schedule) => schedule.scheduleId).sort()).toEqual([...scheduleIds].sort());
  });
});

describe("/v2 creates under the tenant's limits", () => {
  it("are refused with 429 and Retry-After at active_jobs, storing nothing; a schedule upsert still updates", async () => {
    const t = await createTenantWithKey("v2-admission");
    const put = await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { active_jobs: 2 } });
    expect(put.status).toBe(200);
    const schedule = { "upstash-cron": "0 4 * * *", "upstash-schedule-id": "limited" };
    expect((await v2(t.key, `/v2/schedules/${DESTINATION}`, schedule)).status).toBe(200);
    const delayed = { "upstash-delay": "1d" };
    expect((await v2(t.key, `/v2/publish/${DESTINATION}`, delayed)).status).toBe(201);
    const tenantJobs = () => countJobs("WHERE tenant_id = ?", t.tenantId);
    expect(await tenantJobs()).toBe(2);

    for (const refused of [
      await v2(t.key, `/v2/publish/${DESTINATION}`, delayed),
      await v2(t.key, `/v2/enqueue/limited-queue/${DESTINATION}`, delayed),
      await v2(t.key, `/v2/schedules/${DESTINATION}`, { ...schedule, "upstash-schedule-id": "another" }),
      await v2(
        t.key,
        "/v2/batch",
        { "content-type": "application/json" },
        JSON.stringify([{ destination: DESTINATION, queue: "batch-queue", headers: delayed }]),
      ),
    ]) {
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe("60");
      expect(refused.body.error).toMatch(/active_jobs limit/);
    }
    expect(await tenantJobs()).toBe(2);
    // A refused enqueue or batch creates no queue either.
    const queues = await api<unknown[]>("GET", "/v2/queues", { token: t.key });
    expect(queues.body).toEqual([]);
    // Upserting the existing schedule adds no job: it is not a create.
    const upserted = await v2(t.key, `/v2/schedules/${DESTINATION}`, {
      ...schedule,
      "upstash-cron": "0 5 * * *",
    });
    expect(upserted.status).toBe(200);
    const read = await api<{ cron: string }>("GET", "/v2/schedules/limited", { token: t.key });
    expect(read.body.cron).toBe("0 5 * * *");
  });
});
