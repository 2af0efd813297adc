// Outcomes go to their shard as calls end, coalesced: one RPC per shard for outcomes that end
// together, none held by a call still running. Reports go to a real shard (for runs it does not
// know, which it refuses one by one): what is asserted is how many RPCs carried which outcomes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TargetOutcome } from "../../src/core/runs/outcome";
import { FLUSH_DELAY_MS, OutcomeReporter } from "../../src/delivery/outcome-reports";
import type { Claimed } from "../../src/delivery/shard-batches";

const SHARD = 3;
const SUCCESS: TargetOutcome = { kind: "success", status: 200, durationMs: 1 };

let counter = 0;
function claimed(): Claimed {
  counter += 1;
  return {
    ok: true,
    runId: `run_outcome_reports_${counter}`,
    jobId: "job_outcome_reports",
    tenantId: "ten_outcome_reports",
    attempt: 1,
    scheduledAtMs: 0,
    idempotencyKey: `key-${counter}`,
    target: { type: "http", url: "http://127.0.0.1/", method: "POST", headers: {}, body: null },
    timeoutMs: 30_000,
    latenessMs: 0,
    retryOnStatus: [],
    completion: "response",
    fence: counter,
    shard: SHARD,
  } as Claimed;
}

/** A reporter that counts its RPCs (the seam runs once before each). */
function countingReporter() {
  const rpcs = { count: 0 };
  return {
    reporter: new OutcomeReporter(env, () => {
      rpcs.count += 1;
    }),
    rpcs,
  };
}

describe("OutcomeReporter", () => {
  it("sends a shard's outcomes in one RPC once none of its calls is still running", async () => {
    const { reporter, rpcs } = countingReporter();
    reporter.expect(SHARD, 3);
    const reports = [claimed(), claimed(), claimed()].map((run) => reporter.report(run, SUCCESS));
    const reported = await Promise.all(reports);
    expect(rpcs.count).toBe(1);
    // The shard answered for each run (it knows none of them).
    expect(reported.map((report) => report.decision?.ok)).toEqual([false, false, false]);
  });

  it("does not hold finished outcomes for a call still running: they go after the flush delay", async () => {
    const { reporter, rpcs } = countingReporter();
    reporter.expect(SHARD, 3);
    const startedAtMs = Date.now();
    const done = await Promise.all([
      reporter.report(claimed(), SUCCESS),
      reporter.report(claimed(), SUCCESS),
    ]);
    expect(done).toHaveLength(2);
    expect(rpcs.count).toBe(1);
    expect(Date.now() - startedAtMs).toBeGreaterThanOrEqual(FLUSH_DELAY_MS - 5);
    expect(Date.now() - startedAtMs).toBeLessThan(FLUSH_DELAY_MS + 1_000);
    // The slow one reports on its own when it ends.
    await reporter.report(claimed(), SUCCESS);
    expect(rpcs.count).toBe(2);
  });

  it("flushes at once when a message's last run is done or handed off", async () => {
    const { reporter, rpcs } = countingReporter();
    // Two messages' worth running: the first message's last outcome sends what is pending now.
    reporter.expect(SHARD, 4);
    const first = reporter.report(claimed(), SUCCESS);
    const startedAtMs = Date.now();
    await Promise.all([first, reporter.report(claimed(), SUCCESS, { lastOfMessage: true })]);
    expect(Date.now() - startedAtMs).toBeLessThan(FLUSH_DELAY_MS);
    expect(rpcs.count).toBe(1);
    // The second message: one outcome pending, its other call handed off (released).
    const pending = reporter.report(claimed(), SUCCESS);
    reporter.release(SHARD, true);
    await pending;
    expect(rpcs.count).toBe(2);
    // A handed-off call's late outcome goes with its shard's next flush: at once, nothing else runs.
    await reporter.report(claimed(), SUCCESS, { counted: false });
    expect(rpcs.count).toBe(3);
  });
});
