import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { MessageLog } from "../../src/delivery/dispatch-log";
import { afterReport } from "../../src/delivery/dispatch-outcomes";
import type { Claimed, Reported } from "../../src/delivery/shard-batches";

function claimed(index: number, tenantId: string): Claimed {
  return {
    ok: true,
    runId: `run_${index}`,
    jobId: `job_${index}`,
    tenantId,
    attempt: 1,
    scheduledAtMs: 1_000,
    idempotencyKey: `key_${index}`,
    target: { type: "http", url: "https://example.com/", method: "POST", headers: {} },
    timeoutMs: 30_000,
    latenessMs: 10 * index,
    retryOnStatus: [],
    completion: "response",
    fence: index,
    shard: 3,
  };
}

function lines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);
}

describe("the dispatch consumer's log lines", () => {
  it("logs a message's dispatch and its successes once each, and every other outcome per run", () => {
    const runs = [claimed(1, "t_a"), claimed(2, "t_a"), claimed(3, "t_b")];
    const spy = vi.spyOn(console, "log").mockImplementation(() => {});
    const log = new MessageLog(3, runs);
    log.dispatched();
    const ctx = createExecutionContext();
    const success = (run: Claimed, durationMs: number): Reported => ({
      run,
      outcome: { kind: "success", status: 200, durationMs },
      decision: { ok: true, runId: run.runId, state: "SUCCEEDED" },
    });
    afterReport(success(runs[0] as Claimed, 12), 1, env, ctx, log);
    afterReport(success(runs[1] as Claimed, 30), 1, env, ctx, log);
    const retry: Reported = {
      run: runs[2] as Claimed,
      outcome: { kind: "retryable", status: 503, error: "HTTP 503", retryAfterMs: null, durationMs: 5 },
      decision: { ok: true, runId: "run_3", state: "RETRYING", nextAttemptAtMs: 5_000 },
    };
    afterReport(retry, 1, env, ctx, log);
    log.settled();
    const printed = lines(spy);
    spy.mockRestore();
    expect(printed.map((line) => line.event)).toEqual([
      "runs.dispatched",
      "run.outcome",
      "run.retry_scheduled",
      "runs.succeeded",
    ]);
    expect(printed[0]).toMatchObject({
      shard: 3,
      count: 3,
      tenant_ids: ["t_a", "t_b"],
      run_ids: ["run_1", "run_2", "run_3"],
      max_lateness_ms: 30,
    });
    expect(printed[1]).toMatchObject({ run_id: "run_3", outcome: "retryable", target_status: 503 });
    expect(printed[3]).toMatchObject({
      shard: 3,
      count: 2,
      run_ids: ["run_1", "run_2"],
      max_duration_ms: 30,
    });
  });

  it("logs a success per run when no message collects it (a call that was handed off)", () => {
    const run = claimed(1, "t_a");
    const spy = vi.spyOn(console, "log").mockImplementation(() => {});
    afterReport(
      {
        run,
        outcome: { kind: "success", status: 200, durationMs: 7 },
        decision: { ok: true, runId: run.runId, state: "SUCCEEDED" },
      },
      1,
      env,
      createExecutionContext(),
    );
    const printed = lines(spy);
    spy.mockRestore();
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatchObject({ event: "run.outcome", run_id: "run_1", outcome: "success" });
  });
});
