// POST /v1/jobs/bulk (src/service/jobs/change-jobs-in-bulk.ts): acts on the caller's matching jobs only, refuses
// unknown filter fields and an empty filter without "all": true, and when it answers the shards
// refuse the claims of the runs the changed jobs had queued.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimRequest, ClaimResult } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { dispatchButLose, shardRows, stubFor } from "../helpers/scheduling";

disarmShardsAfterEach();

async function createJob(key: string, name: string, metadata: Record<string, unknown> = {}): Promise<string> {
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: key,
    body: jobBody({ name, metadata }),
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function statusOf(key: string, id: string): Promise<string> {
  return (await api<{ status: string }>("GET", `/v1/jobs/${id}`, { token: key })).body.status;
}

describe("POST /v1/jobs/bulk", () => {
  it("pauses, resumes and deletes the matching jobs of the caller's tenant only", async () => {
    const a = await createTenantWithKey("bulk-a");
    const b = await createTenantWithKey("bulk-b");
    const hit1 = await createJob(a.key, "flood-1", { team: "x" });
    const hit2 = await createJob(a.key, "flood-2", { team: "x" });
    const otherMeta = await createJob(a.key, "flood-3", { team: "y" });
    const otherName = await createJob(a.key, "keep-1", { team: "x" });
    const otherTenant = await createJob(b.key, "flood-1", { team: "x" });

    const filter = { name_prefix: "flood-", metadata: { team: "x" } };
    const paused = await api("POST", "/v1/jobs/bulk", { token: a.key, body: { action: "pause", filter } });
    expect(paused).toMatchObject({ status: 200, body: { matched: 2, done: 2 } });
    expect(await statusOf(a.key, hit1)).toBe("PAUSED");
    expect(await statusOf(a.key, hit2)).toBe("PAUSED");
    for (const id of [otherMeta, otherName]) expect(await statusOf(a.key, id)).toBe("ACTIVE");
    expect(await statusOf(b.key, otherTenant)).toBe("ACTIVE");

    const again = await api("POST", "/v1/jobs/bulk", { token: a.key, body: { action: "pause", filter } });
    expect(again.body).toEqual({ matched: 2, done: 2 });
    const resumed = await api("POST", "/v1/jobs/bulk", {
      token: a.key,
      body: { action: "resume", filter: { status: "PAUSED" } },
    });
    expect(resumed.body).toEqual({ matched: 2, done: 2 });
    expect(await statusOf(a.key, hit1)).toBe("ACTIVE");

    const deleted = await api("POST", "/v1/jobs/bulk", {
      token: a.key,
      body: { action: "delete", all: true },
    });
    expect(deleted.body).toEqual({ matched: 4, done: 4 });
    expect(await statusOf(a.key, otherName)).toBe("DELETED");
    expect(await statusOf(b.key, otherTenant)).toBe("ACTIVE");
  });

  it("selects by created_before", async () => {
    const t = await createTenantWithKey("bulk-time");
    const old = await createJob(t.key, "old");
    const cut = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const young = await createJob(t.key, "young");
    const res = await api("POST", "/v1/jobs/bulk", {
      token: t.key,
      body: { action: "pause", filter: { created_before: cut } },
    });
    expect(res.body).toEqual({ matched: 1, done: 1 });
    expect(await statusOf(t.key, old)).toBe("PAUSED");
    expect(await statusOf(t.key, young)).toBe("ACTIVE");
  });

  it("refuses unknown fields, bad values and an empty filter, naming each, and changes nothing", async () => {
    const t = await createTenantWithKey("bulk-bad");
    const id = await createJob(t.key, "stays");
    const bad = await api<{ errors: { path: string }[] }>("POST", "/v1/jobs/bulk", {
      token: t.key,
      body: {
        action: "stop",
        filter: { name_prefx: "s", status: "DELETED", created_before: "yesterday" },
        extra: 1,
      },
    });
    expect(bad.status).toBe(400);
    const paths = bad.body.errors.map((error) => error.path).join(" ");
    for (const name of ["action", "name_prefx", "status", "created_before", "extra"])
      expect(paths).toContain(name);
    const empty = await api<{ errors: { path: string }[] }>("POST", "/v1/jobs/bulk", {
      token: t.key,
      body: { action: "delete", filter: {} },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((error) => error.path)).toEqual(["filter"]);
    expect((await api("POST", "/v1/jobs/bulk", { token: t.key, body: { action: "delete" } })).status).toBe(
      400,
    );
    expect(await statusOf(t.key, id)).toBe("ACTIVE");
  });

  it("refuses the claim of a run a bulk-deleted job had queued, once the call answered", async () => {
    const t = await createTenantWithKey("bulk-claim");
    const id = await createJob(t.key, "queued");
    await dispatchButLose([id]);
    const [run] = await shardRows<{ run_id: string; fence: number }>(
      id,
      "SELECT run_id, fence FROM runs WHERE job_id = ?",
      id,
    );
    const res = await api("POST", "/v1/jobs/bulk", {
      token: t.key,
      body: { action: "delete", filter: { name_prefix: "queued" } },
    });
    expect(res.body).toEqual({ matched: 1, done: 1 });
    const claims: ClaimRequest[] = [{ runId: run?.run_id as string, fence: run?.fence as number, jobId: id }];
    const [claim]: ClaimResult[] = await stubFor(id).claimRuns(shardOfJob(env, id), claims);
    expect(claim?.ok).toBe(false);
  });
});
