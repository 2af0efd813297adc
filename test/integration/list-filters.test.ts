// The filtered /v1 lists and the /v2 bulk routes refuse a query parameter they do not serve with a
// 400 naming it, and store or change nothing: an ignored filter would widen the answer (or, on a
// bulk route, the action) to everything.
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { v2 } from "../helpers/qstash";

disarmShardsAfterEach();

describe("unknown query parameters", () => {
  it("are refused on every filtered /v1 list, naming each", async () => {
    const t = await createTenantWithKey("list-filters");
    const job = await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    expect(job.status).toBe(201);
    const lists = [
      "/v1/jobs",
      "/v1/runs",
      "/v1/dead-letters",
      "/v1/alerts",
      "/v1/flow-control",
      `/v1/jobs/${job.body.id}/runs`,
    ];
    for (const list of lists) {
      const res = await api<{ errors: { path: string }[]; type: string }>(
        "GET",
        `${list}?limit=5&jobId=${job.body.id}&sate=FAILED`,
        { token: t.key },
      );
      expect(res.status, list).toBe(400);
      expect(res.headers.get("content-type"), list).toContain("application/problem+json");
      expect(res.body.errors.map((error) => error.path).sort(), list).toEqual(["jobId", "sate"]);
      expect((await api("GET", `${list}?limit=5`, { token: t.key })).status, list).toBe(200);
    }
    const keys = await api<{ errors: { path: string }[] }>(
      "GET",
      `/v1/api-keys?tenant_id=${t.tenantId}&tenant=x`,
    );
    expect(keys.status).toBe(400);
    expect(keys.body.errors.map((error) => error.path)).toEqual(["tenant"]);
  });

  it("are refused on the /v2 bulk routes before anything is cancelled", async () => {
    const t = await createTenantWithKey("list-filters-v2");
    const published = await v2(
      "POST",
      "/v2/publish/https://example.com/later",
      t.key,
      { "upstash-delay": "600s" },
      "x",
    );
    const messageId = published.body.messageId as string;
    for (const [method, path] of [
      ["DELETE", "/v2/messages?messageId=other"],
      ["DELETE", "/v2/messages?callerIp=1.2.3.4"],
      ["DELETE", "/v2/messages?label="],
      ["DELETE", "/v2/dlq?mesageId=x"],
      ["POST", "/v2/dlq/retry?api=x"],
      ["GET", "/v2/events?callerIp=1.2.3.4"],
    ] as const) {
      const res = await v2(method, path, t.key);
      expect(res.status, path).toBe(400);
      const name = path.split("?")[1]?.split("=")[0] ?? "";
      expect(res.body.error, path).toContain(name);
    }
    // A URL group filter selects only messages published to that group: this one was not.
    expect((await v2("DELETE", "/v2/messages?topicName=group", t.key)).body).toEqual({ cancelled: 0 });
    expect((await v2("GET", `/v2/messages/${messageId}`, t.key)).status).toBe(200);
  });
});
