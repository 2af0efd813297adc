// The dispatcher pool lane (DISPATCH_LANE = "pool") through a real `wrangler dev` and a real local
// target: shards hand runs due now to their dispatcher objects, which claim and call with the
// consumer's own code; runs due later, and what no dispatcher has room for, go through the queue.
// Whatever lane a run takes, each instant arrives once, never early, and a failed call is retried.
import { describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

const JOBS = 120;
const INSTANTS = 4;

describe("e2e: the dispatcher pool lane", () => {
  const e2e = useScheduler({ tenant: "e2e-pool", vars: { DISPATCH_LANE: "pool" } });

  it("calls every instant once, never early, and retries a failed call", async () => {
    let failedOnce = false;
    const { target, api, server } = e2e;
    target.respond((call) => {
      if (call.path === "/flaky" && !failedOnce) {
        failedOnce = true;
        return { status: 503 };
      }
      return { status: 200 };
    });
    const startMs = Math.ceil((Date.now() + 8_000) / 1000) * 1000;
    const jobs = [
      ...Array.from({ length: JOBS }, (_, i) => ({
        name: `pool-${i}`,
        schedule: { type: "once", at: new Date(startMs + (i % INSTANTS) * 1_000).toISOString() },
        target: { url: `${target.url}/once/${i}` },
      })),
      {
        name: "pool-flaky",
        schedule: { type: "once", at: new Date(startMs).toISOString() },
        target: { url: `${target.url}/flaky` },
        retry: { max_attempts: 3, backoff: { initial: "1s", jitter: "none" } },
      },
    ];
    for (let i = 0; i < jobs.length; i += 50) {
      const created = await api<{ results: { status: number }[] }>("POST", "/v1/jobs/batch", {
        jobs: jobs.slice(i, i + 50),
      });
      expect(created.status).toBe(200);
      expect(created.body.results.every((result) => result.status === 201)).toBe(true);
    }
    await waitUntil(
      async () =>
        target.calls.filter((call) => call.path.startsWith("/once/")).length >= JOBS &&
        target.calls.filter((call) => call.path === "/flaky").length >= 2,
      { timeoutMs: 60_000, intervalMs: 200, what: "every pool-lane call" },
    );
    const onceCalls = target.calls.filter((call) => call.path.startsWith("/once/"));
    const keys = onceCalls.map((call) => String(call.headers["idempotency-key"]));
    expect(onceCalls.length).toBe(JOBS);
    expect(new Set(keys).size).toBe(JOBS);
    for (const call of onceCalls) {
      const i = Number(call.path.split("/")[2]);
      expect(call.receivedAtMs).toBeGreaterThanOrEqual(startMs + (i % INSTANTS) * 1_000);
    }
    const flaky = target.calls.filter((call) => call.path === "/flaky");
    expect(flaky.map((call) => call.headers["idempotency-key"])).toEqual([
      flaky[0]?.headers["idempotency-key"],
      flaky[0]?.headers["idempotency-key"],
    ]);
    // The runs went through the dispatchers, not only the queue.
    expect(server.log()).toContain("dispatcher.accepted");
  });
});
