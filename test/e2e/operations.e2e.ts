// Operations through a real `wrangler dev`: pause/resume of every-second jobs under each misfire
// policy, and a shard whose alarm is lost raising a missed-run alert before the watchdog heals it.
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

interface Job {
  id: string;
  shard: number;
}
interface Run {
  state: string;
  kind: string;
  scheduled_at: string;
  events: { state: string; reason: string }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("e2e: operations", () => {
  const e2e = useScheduler({
    tenant: "e2e-operations",
    vars: { EDGECRON_TEST_HOOKS: "1", MAINTENANCE_INTERVAL_MS: "1000" },
  });

  const callsOf = (jobId: string): ReceivedCall[] =>
    e2e.target.calls.filter((call) => call.headers["edgecron-job-id"] === jobId);

  it("an every-second job paused for 5 s (1 s grace) fires once more under fire_now, never under skip, each missed second under catch_up", async () => {
    const policies = ["fire_now", "skip", "catch_up"] as const;
    const jobs: Record<string, Job> = {};
    for (const policy of policies) {
      const res = await e2e.api<Job>("POST", "/v1/jobs", {
        name: `pause-${policy}`,
        schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
        target: { url: `${e2e.target.url}/pause/${policy}` },
        // A 1 s grace: on resume the seconds missed more than 1 s ago go to the policy (those
        // within it fire late as "due", as after an outage, and are not counted below).
        misfire: { policy, grace: "1s", max_catch_up: 10 },
      });
      expect(res.status).toBe(201);
      jobs[policy] = res.body;
    }
    await waitUntil(() => policies.every((policy) => callsOf(jobs[policy]!.id).length >= 2), {
      what: "first fires",
    });
    // Each pause takes effect somewhere inside its request, each resume inside its own: the
    // missed span is bounded below by (first resume sent - last pause answered) and above by
    // (last resume answered - first pause sent). A loaded machine stretches both.
    const pauseSentAtMs = Date.now();
    for (const policy of policies)
      expect((await e2e.api("POST", `/v1/jobs/${jobs[policy]!.id}/pause`)).status).toBe(200);
    const pausedAtMs = Date.now();
    await sleep(5_000);
    const resumeSentAtMs = Date.now();
    for (const policy of policies)
      expect((await e2e.api("POST", `/v1/jobs/${jobs[policy]!.id}/resume`)).status).toBe(200);
    const resumedAtMs = Date.now();
    const fewestMissed = Math.floor((resumeSentAtMs - pausedAtMs) / 1000) - 1;
    const mostMissed = Math.ceil((resumedAtMs - pauseSentAtMs) / 1000) + 1;
    await sleep(2_500);
    for (const policy of policies) await e2e.api("POST", `/v1/jobs/${jobs[policy]!.id}/pause`);
    await sleep(1_000);

    // The shard records why each run exists: runs born from the misfire policy say so.
    const misfire = async (policy: string) => {
      const runs = await e2e.api<{ data: (Run & { id: string })[] }>(
        "GET",
        `/v1/jobs/${jobs[policy]!.id}/runs?limit=200`,
      );
      const fromMisfire = runs.body.data.filter((run) => run.events[0]?.reason.startsWith("misfire"));
      const fired = fromMisfire.filter((run) => run.state !== "SKIPPED");
      const skipped = fromMisfire.filter((run) => run.state === "SKIPPED");
      const calls = callsOf(jobs[policy]!.id).filter((call) =>
        fired.some((run) => run.id === call.headers["edgecron-run-id"]),
      );
      return { fired, skipped, calls };
    };
    const fireNow = await misfire("fire_now");
    const skip = await misfire("skip");
    const catchUp = await misfire("catch_up");
    console.log(
      `[e2e] paused ${resumedAtMs - pausedAtMs} ms; missed instants fired: fire_now=${fireNow.fired.length} skip=${skip.fired.length} catch_up=${catchUp.fired.length} (skipped: ${fireNow.skipped.length}/${skip.skipped.length}/${catchUp.skipped.length})`,
    );
    // fire_now: once more, for the most recent missed instant; the rest recorded as SKIPPED.
    expect(fireNow.fired).toHaveLength(1);
    expect(fireNow.calls).toHaveLength(1);
    expect(fireNow.skipped.length).toBeGreaterThanOrEqual(2);
    expect(Date.parse(fireNow.fired[0]!.scheduled_at)).toBeGreaterThan(
      Math.max(...fireNow.skipped.map((run) => Date.parse(run.scheduled_at))),
    );
    // skip: none of them.
    expect(skip.fired).toHaveLength(0);
    expect(skip.skipped.length).toBeGreaterThanOrEqual(3);
    // catch_up: every second missed beyond the grace (about 4 for a 5 s pause, within the cap of 10).
    expect(catchUp.skipped).toHaveLength(0);
    expect(catchUp.fired.length).toBeGreaterThanOrEqual(Math.max(1, fewestMissed - 1));
    expect(catchUp.fired.length).toBeLessThanOrEqual(Math.min(10, mostMissed));
    expect(catchUp.calls).toHaveLength(catchUp.fired.length);
    expect(catchUp.fired.every((run) => run.kind === "catch_up")).toBe(true);
  });

  it("a shard whose alarm is lost raises a missed-run alert, the watchdog recovers the job, and the alert resolves", async () => {
    const res = await e2e.api<Job>("POST", "/v1/jobs", {
      name: "lost-alarm",
      schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
      target: { url: `${e2e.target.url}/lost-alarm` },
      alert_after: "2s",
    });
    expect(res.status).toBe(201);
    const job = res.body;
    await waitUntil(() => callsOf(job.id).length >= 1, { what: "first fire" });
    const hook = await fetch(
      `${e2e.server.baseUrl}/__test/shards/${job.shard}/delete-alarm?lost_for_ms=5000`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      },
    );
    expect(hook.status).toBe(200);
    const lostAtMs = Date.now();
    const alert = await waitUntil(
      async () => {
        const alerts = await e2e.api<{ data: { kind: string; job_id: string; created_at: string }[] }>(
          "GET",
          "/v1/alerts",
        );
        return alerts.body.data.find((found) => found.kind === "missed_run" && found.job_id === job.id);
      },
      { timeoutMs: 20_000, what: "a missed_run alert" },
    );
    console.log(
      `[e2e] missed-run alert ${Date.parse(alert.created_at) - lostAtMs} ms after the alarm was lost`,
    );
    await waitUntil(() => callsOf(job.id).some((call) => call.receivedAtMs > Date.parse(alert.created_at)), {
      timeoutMs: 20_000,
      what: "the job to fire again after the watchdog",
    });
    // Firing again resolves the alert, within a maintenance pass of the run reaching the history.
    const resolved = await waitUntil(
      async () => {
        const alerts = await e2e.api<{ data: { id: string; job_id: string; resolution: string | null }[] }>(
          "GET",
          "/v1/alerts?state=resolved&kind=missed_run",
        );
        return alerts.body.data.find((found) => found.job_id === job.id);
      },
      { timeoutMs: 40_000, what: "the missed_run alert to resolve itself" },
    );
    expect(resolved.resolution).toBe("job_fired_again");
    await e2e.api("POST", `/v1/jobs/${job.id}/pause`);
  });
});
