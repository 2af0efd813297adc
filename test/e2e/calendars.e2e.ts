// A job with two specs and a holiday calendar through a real `wrangler dev` and a real local
// target: the union's instants fire once each, excluded ones are recorded SKIPPED (reason
// `excluded`), across a DST change (by backfilling past instants, since a live DST change cannot
// be waited for), and replacing the calendar re-derives a running job's timer.
import { describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

interface Run {
  scheduled_at: string;
  state: string;
  events: { reason: string }[];
}

const london = (expr: string) => ({ type: "cron", expr, timezone: "Europe/London" });

describe("e2e: several specs and calendars through wrangler dev", () => {
  const e2e = useScheduler({ tenant: "e2e-calendars" });

  async function runsOf(jobId: string): Promise<Run[]> {
    const page = await e2e.api<{ data: Run[] }>("GET", `/v1/jobs/${jobId}/runs?limit=200`);
    return page.body.data;
  }

  it("runs the union of two specs across the spring-forward change once per instant and skips the holiday", async () => {
    const calendar = await e2e.api("POST", "/v1/calendars", {
      name: "uk-test",
      timezone: "Europe/London",
      rules: [{ type: "date", date: "2026-03-29" }],
    });
    expect(calendar.status).toBe(201);
    const job = await e2e.api<{ id: string }>("POST", "/v1/jobs", {
      name: "two-specs",
      schedules: [london("0 9 * * *"), london("0 9,17 * * *")],
      calendars: ["uk-test"],
      target: { url: `${e2e.target.url}/dst` },
    });
    expect(job.status).toBe(201);
    const backfill = await e2e.api<{ created: number; skipped: number }>(
      "POST",
      `/v1/jobs/${job.body.id}/backfill`,
      {
        from: "2026-03-27T12:00:00Z",
        to: "2026-03-30T12:00:00Z",
      },
    );
    expect(backfill.status).toBe(202);
    expect(backfill.body).toMatchObject({ created: 4, skipped: 2 });
    await waitUntil(() => e2e.target.calls.filter((call) => call.path === "/dst").length >= 4, {
      what: "four calls to the target",
    });
    const scheduledAt = e2e.target.calls
      .filter((call) => call.path === "/dst")
      .map((call) => String(call.headers["edgecron-scheduled-at"]))
      .sort();
    expect(scheduledAt).toEqual([
      "2026-03-27T17:00:00.000Z",
      "2026-03-28T09:00:00.000Z", // both specs: one call
      "2026-03-28T17:00:00.000Z",
      "2026-03-30T08:00:00.000Z", // 09:00 BST
    ]);
    const skipped = await waitUntil(
      async () => {
        const runs = (await runsOf(job.body.id)).filter((run) => run.state === "SKIPPED");
        return runs.length === 2 ? runs : undefined;
      },
      { what: "two SKIPPED runs in the history" },
    );
    expect(skipped.map((run) => [run.scheduled_at, run.events[0]?.reason]).sort()).toEqual([
      ["2026-03-29T08:00:00.000Z", "excluded"],
      ["2026-03-29T16:00:00.000Z", "excluded"],
    ]);
    await e2e.api("DELETE", `/v1/jobs/${job.body.id}`);
  });

  it("records a live job's instants as excluded until the calendar is replaced, then fires them", async () => {
    const today = new Date().toISOString().slice(0, 10);
    await e2e.api("POST", "/v1/calendars", {
      name: "today",
      timezone: "UTC",
      rules: [{ type: "date", date: today }],
    });
    const job = await e2e.api<{ id: string; next_fire_times: string[] }>("POST", "/v1/jobs", {
      name: "live",
      schedules: [
        { type: "cron", expr: "*/2 * * * * *", timezone: "UTC" },
        { type: "cron", expr: "*/3 * * * * *", timezone: "UTC" },
      ],
      calendars: ["today"],
      target: { url: `${e2e.target.url}/live` },
    });
    expect(job.status).toBe(201);
    // Everything today is excluded: nothing is listed to fire until tomorrow.
    expect(job.body.next_fire_times.every((iso) => !iso.startsWith(today))).toBe(true);
    await waitUntil(
      async () =>
        (await runsOf(job.body.id)).filter((run) => run.events[0]?.reason === "excluded").length >= 3,
      { what: "excluded instants recorded", timeoutMs: 20_000 },
    );
    expect(e2e.target.calls.filter((call) => call.path === "/live")).toHaveLength(0);
    const replaced = await e2e.api("PUT", "/v1/calendars/today", {
      timezone: "UTC",
      rules: [{ type: "date", date: "2001-01-01" }],
    });
    expect(replaced.status).toBe(200);
    await waitUntil(() => e2e.target.calls.filter((call) => call.path === "/live").length >= 6, {
      what: "calls after the calendar edit",
      timeoutMs: 20_000,
    });
    await e2e.api("POST", `/v1/jobs/${job.body.id}/pause`);
    const keys = e2e.target.calls
      .filter((call) => call.path === "/live")
      .map((call) => String(call.headers["idempotency-key"]));
    // Instants both specs share (every 6 s) arrive once: no idempotency key twice.
    expect(new Set(keys).size).toBe(keys.length);
    const seconds = e2e.target.calls
      .filter((call) => call.path === "/live")
      .map((call) => new Date(String(call.headers["edgecron-scheduled-at"])).getUTCSeconds());
    expect(seconds.every((second) => second % 2 === 0 || second % 3 === 0)).toBe(true);
    await e2e.api("DELETE", `/v1/jobs/${job.body.id}`);
  });
});
