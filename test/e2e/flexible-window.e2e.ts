// A flexible window through a real `wrangler dev` and a real local target: 200 jobs of one
// tenant due at one instant with `flexible_window: {max: "10s"}` arrive spread over the 10 s, each
// exactly once, none before its instant nor before the point its job resource announced.
import { describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

const JOBS = 200;
const MAX_MS = 10_000;

describe("e2e: a flexible window spreads one instant's burst", () => {
  const e2e = useScheduler({ tenant: "e2e-flexible" });

  it("calls 200 jobs due at one instant once each, spread over [instant, instant + 10 s]", async () => {
    const instantMs = Math.ceil((Date.now() + 20_000) / 1_000) * 1_000;
    const at = new Date(instantMs).toISOString();
    const created = await e2e.api<{
      created: number;
      results: { job?: { id: string; next_fire_times: string[] } }[];
    }>("POST", "/v1/jobs/batch", {
      jobs: Array.from({ length: JOBS }, (_, index) => ({
        name: `burst-${index}`,
        schedule: { type: "once", at },
        flexible_window: { max: "10s" },
        target: { url: `${e2e.target.url}/burst` },
      })),
    });
    expect(created.status).toBe(200);
    expect(created.body.created).toBe(JOBS);
    const announced = new Map(
      created.body.results.map((result) => [
        result.job?.id ?? "",
        Date.parse(result.job?.next_fire_times[0] ?? ""),
      ]),
    );
    for (const fireAtMs of announced.values()) {
      expect(fireAtMs).toBeGreaterThanOrEqual(instantMs);
      expect(fireAtMs).toBeLessThanOrEqual(instantMs + MAX_MS);
    }
    const burst = () => e2e.target.calls.filter((call) => call.path === "/burst");
    await waitUntil(() => burst().length >= JOBS, { timeoutMs: 60_000, what: `${JOBS} calls` });
    // A little longer: a duplicate would arrive late.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const calls = burst();
    const byJob = new Map<string, number>();
    for (const call of calls) {
      const jobId = String(call.headers["edgecron-job-id"]);
      byJob.set(jobId, (byJob.get(jobId) ?? 0) + 1);
      expect(String(call.headers["edgecron-scheduled-at"])).toBe(at);
      expect(String(call.headers["idempotency-key"])).toBe(`${jobId}:${at}`);
      // Never before the point the job announced (the local clock and the worker's are one).
      expect(call.receivedAtMs).toBeGreaterThanOrEqual((announced.get(jobId) ?? 0) - 5);
    }
    expect(calls).toHaveLength(JOBS);
    expect([...byJob.values()].every((count) => count === 1)).toBe(true);
    expect(new Set(byJob.keys())).toEqual(new Set(announced.keys()));
    // Spread: the announced points fill the 10 one-second buckets, none holding a quarter of them.
    const buckets = new Array<number>(11).fill(0);
    for (const fireAtMs of announced.values()) {
      const bucket = Math.floor((fireAtMs - instantMs) / 1_000);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    expect(buckets.slice(0, 10).every((count) => count > 0 && count < JOBS / 4)).toBe(true);
    // And the calls themselves arrive spread out, not in one burst at the instant.
    const arrivals = calls.map((call) => call.receivedAtMs - instantMs).sort((a, b) => a - b);
    const firstHalf = arrivals.filter((offsetMs) => offsetMs < MAX_MS / 2).length;
    expect(firstHalf).toBeGreaterThan(JOBS / 4);
    expect(firstHalf).toBeLessThan((JOBS * 3) / 4);
  });
});
