// A slow endpoint delays only its own runs: one tenant's target (or alert webhook) hanging for
// seconds must not hold another tenant's runs, their outcomes, or the alarms that fire them.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import type { DispatchMessage, ShardJob } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  currentRunsOf,
  dispatchButLose,
  jobIdsOnOneShard,
  placeJob,
  seedTenant,
  snapshot,
  spec,
  type TargetCall,
  targetCalls,
  targetUrl,
  WAIT,
} from "../helpers/scheduling";

disarmShardsAfterEach();

const HANGING_TENANT = "ten_hanging_endpoints";
/** How long the hanging target (and webhook) takes to answer: far past any normal lateness. */
const HANG_MS = 6_000;
/** Lateness a job due every second may show here on a busy 2-core machine, hang or not. */
const NORMAL_LATENESS_MS = 1_000;

beforeAll(async () => {
  await seedTenant();
  await seedTenant(HANGING_TENANT, "b".repeat(64));
});

function ofTenant(job: ShardJob, tenantId: string): ShardJob {
  return { ...job, tenantId };
}

async function shardState(jobId: string): Promise<string[]> {
  const rows = await currentRunsOf<{ state: string }>(jobId, ["state"]);
  return rows.map((row) => row.state);
}

/** How late each call reached the target, from the instant it carried (logged for the record). */
function latenessesMs(label: string, calls: TargetCall[]): number[] {
  const lateness = calls.map(
    (call) => call.receivedAtMs - Date.parse(call.headers["edgecron-scheduled-at"] ?? ""),
  );
  console.log(`[slow-endpoints] ${label}: lateness ms ${lateness.join(", ")}`);
  return lateness;
}

async function pause(job: ShardJob): Promise<void> {
  await placeJob({ ...job, version: job.version + 1, status: "PAUSED" });
}

describe("a target that hangs", () => {
  it("holds neither the other runs' outcomes in its message nor the queue batch", async () => {
    const [hangingId, quickId] = jobIdsOnOneShard(["hangs", "quick"]) as [string, string];
    const far = { type: "once" as const, at: new Date(Date.now() + 3_600_000).toISOString() };
    const hanging = ofTenant(
      snapshot(
        hangingId,
        spec({ schedule: far, target: { url: targetUrl(`/slow/${HANG_MS}/${hangingId}`) }, timeout: "30s" }),
      ),
      HANGING_TENANT,
    );
    const quick = snapshot(quickId, spec({ schedule: far, target: { url: targetUrl(`/ok/${quickId}`) } }));
    await placeJob(hanging);
    await placeJob(quick);
    await dispatchButLose([hangingId, quickId]);
    // Both runs in one message, as a shard bundles a tick's runs: two tenants, one slow target.
    const runs = await Promise.all(
      [hanging, quick].map(async (job) => {
        const [run] = await currentRunsOf<{ run_id: string; fence: number; scheduled_at_ms: number }>(
          job.jobId,
          ["run_id", "fence", "scheduled_at_ms"],
        );
        return {
          run_id: run!.run_id,
          job_id: job.jobId,
          tenant: job.tenantId,
          scheduled_at: run!.scheduled_at_ms,
          attempt: 1,
          fence: run!.fence,
          version: 1,
        };
      }),
    );
    const batch = createMessageBatch<DispatchMessage>("edgecron-dispatch", [
      { id: "mixed", timestamp: new Date(), attempts: 1, body: { shard: hanging.shard, runs } },
    ]);
    const ctx = createExecutionContext();
    const startedAtMs = Date.now();
    await worker.queue(batch, env, ctx);

    // The batch ended long before the hanging call did, and the quick run's outcome is recorded
    // while the hang lasts (a quick call slower than the hand-off deadline reports just after).
    expect(Date.now() - startedAtMs).toBeLessThan(HANG_MS / 2);
    await vi.waitFor(async () => expect(await shardState(quickId)).toEqual(["SUCCEEDED"]), WAIT);
    expect(await shardState(hangingId)).toEqual(["RUNNING"]);
    expect(Date.now() - startedAtMs).toBeLessThan(HANG_MS / 2);
    // The hanging call goes on (handed off) and reports when it ends; the message was acked.
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["mixed"]);
    expect(result.retryMessages).toEqual([]);
    expect(await shardState(hangingId)).toEqual(["SUCCEEDED"]);
    expect(await targetCalls(`/slow/${HANG_MS}/${hangingId}`)).toHaveLength(1);
    expect(await targetCalls(`/ok/${quickId}`)).toHaveLength(1);
  });

  it("leaves another tenant's every-second job on time, its outcomes recorded while the hang lasts", async () => {
    const [hangingId, steadyId] = jobIdsOnOneShard(["hangs-every-second", "steady"]) as [string, string];
    const everySecond = { type: "interval" as const, every: "1s" };
    const hanging = ofTenant(
      snapshot(
        hangingId,
        spec({
          schedule: everySecond,
          target: { url: targetUrl(`/slow/${HANG_MS}/${hangingId}`) },
          timeout: "30s",
        }),
      ),
      HANGING_TENANT,
    );
    const steady = snapshot(
      steadyId,
      spec({ schedule: everySecond, target: { url: targetUrl(`/ok/${steadyId}`) } }),
    );
    try {
      await placeJob(hanging);
      await placeJob(steady);
      // The hanging tenant's first call is in flight: from now on its target hangs every second.
      await vi.waitFor(
        async () => expect(await targetCalls(`/slow/${HANG_MS}/${hangingId}`)).not.toHaveLength(0),
        WAIT,
      );
      const hangStartedAtMs = Date.now();
      await vi.waitFor(
        async () => expect((await targetCalls(`/ok/${steadyId}`)).length).toBeGreaterThanOrEqual(5),
        WAIT,
      );
      // Outcomes reach the shard as each call ends, not when the slowest call in flight does.
      const states = await shardState(steadyId);
      const lateness = latenessesMs("beside a hanging target", await targetCalls(`/ok/${steadyId}`));
      expect(Math.max(...lateness)).toBeLessThan(NORMAL_LATENESS_MS);
      expect(Date.now() - hangStartedAtMs).toBeLessThan(HANG_MS);
      expect(states.filter((state) => state === "SUCCEEDED").length).toBeGreaterThanOrEqual(4);
      expect(await shardState(hangingId)).not.toContain("SUCCEEDED");
    } finally {
      await pause(hanging);
      await pause(steady);
    }
  });
});

describe("an alert webhook that hangs", () => {
  it("holds no shard alarm: another tenant's every-second job on the same shard stays on time", async () => {
    const [failingId, steadyId] = jobIdsOnOneShard(["pauses", "steady-beside-alert"]) as [string, string];
    const hookPath = `/slow/${HANG_MS}/alert-hook/${failingId}`;
    const hookTenant = `ten_hanging_hook_${Date.now().toString(36)}`;
    await env.DB.prepare(
      "INSERT INTO tenants (id, name, signing_secret, alert_webhook_url, created_at_ms) VALUES (?, ?, ?, ?, ?)",
    )
      .bind(hookTenant, "hanging hook", "d".repeat(64), targetUrl(hookPath), Date.now())
      .run();
    const everySecond = { type: "interval" as const, every: "1s" };
    // Fails for good at its first instant and is paused: the shard raises a pause alert.
    const failing = ofTenant(
      snapshot(
        failingId,
        spec({
          schedule: everySecond,
          target: { url: targetUrl(`/status/400/${failingId}`) },
          pause_after_failures: 1,
        }),
      ),
      hookTenant,
    );
    const steady = snapshot(
      steadyId,
      spec({ schedule: everySecond, target: { url: targetUrl(`/ok/${steadyId}`) } }),
    );
    try {
      await placeJob(failing);
      await placeJob(steady);
      await vi.waitFor(async () => expect(await targetCalls(hookPath)).toHaveLength(1), WAIT);
      // The webhook hangs from here on; the steady job keeps firing every second meanwhile.
      const hookCalledAtMs = Date.now();
      const before = (await targetCalls(`/ok/${steadyId}`)).length;
      await vi.waitFor(
        async () => expect((await targetCalls(`/ok/${steadyId}`)).length).toBeGreaterThanOrEqual(before + 3),
        WAIT,
      );
      const lateness = latenessesMs("beside a hanging webhook", await targetCalls(`/ok/${steadyId}`));
      expect(Math.max(...lateness)).toBeLessThan(NORMAL_LATENESS_MS);
      expect(Date.now() - hookCalledAtMs).toBeLessThan(HANG_MS);
    } finally {
      await pause(steady);
      await pause({ ...failing, version: failing.version + 1 });
    }
    // The alert is delivered once the webhook answers, and recorded as delivered.
    await vi.waitFor(async () => {
      const alert = await env.DB.prepare("SELECT delivery FROM alerts WHERE tenant_id = ?")
        .bind(hookTenant)
        .first<{ delivery: string }>();
      expect(alert?.delivery).toBe("delivered");
    }, WAIT);
  });
});
