// A flood larger than the machine can start, through the local dev server over loopback: one
// tenant's 4,000 every-second jobs beside another tenant's single every-second job. The victim's
// calls stay punctual (its tenant's share of every shard's dispatch window is kept for it), and
// none of its instants is missed; before the window, its p95 was tens of seconds.
import { describe, expect, it } from "vitest";
import { createTenantWithKey, type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

/**
 * About twice what this machine starts in a second (some 2,000 calls/s on a quiet run of
 * December 2026's machine, 950 on an earlier one): at 800, then at 1,600 on the faster machine,
 * the scheduler kept up and even caught up, and the flood was no longer a flood.
 */
const FLOOD_JOBS = 4_000;
const MEASURED_SECONDS = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function latenessMs(calls: ReceivedCall[]): number[] {
  return calls.map((call) => call.receivedAtMs - Date.parse(String(call.headers["edgecron-scheduled-at"])));
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

describe("e2e: another tenant's flood", () => {
  const e2e = useScheduler();

  async function tenantApi(name: string) {
    return (await createTenantWithKey(e2e.server.baseUrl, { name })).api;
  }

  it("keeps the victim's every-second job punctual while the flood waits in the shards", async () => {
    const victim = await tenantApi("e2e-victim");
    const flooder = await tenantApi("e2e-flooder");
    const endAt = new Date(Date.now() + 120_000).toISOString();
    for (let from = 0; from < FLOOD_JOBS; from += 500) {
      const jobs = Array.from({ length: 500 }, (_, i) => ({
        name: `flood-${from + i}`,
        schedule: { type: "interval", every: "1s" },
        target: { url: `${e2e.target.url}/flood/${from + i}` },
        end_at: endAt,
      }));
      let created = await flooder<{ created: number }>("POST", "/v1/jobs/batch", { jobs });
      // The tenant's creates per second (2,000 locally): the rest of the flood waits its second.
      while (created.status === 429) {
        await sleep(1_000);
        created = await flooder<{ created: number }>("POST", "/v1/jobs/batch", { jobs });
      }
      expect(created.body.created).toBe(500);
    }
    const floodCalls = () => e2e.target.calls.filter((call) => call.path.startsWith("/flood/")).length;
    await waitUntil(() => floodCalls() >= FLOOD_JOBS, { timeoutMs: 30_000, what: "the flood flowing" });

    // The victim's create is answered during the flood: its first instant must still be ahead
    // when it is stored (2 s was not always enough in CI: 11 of 12 instants were called).
    const startMs = Math.ceil((Date.now() + 5_000) / 1000) * 1000;
    const createStartMs = Date.now();
    const job = await victim<{ id: string }>("POST", "/v1/jobs", {
      name: "victim",
      schedule: { type: "interval", every: "1s", anchor: new Date(startMs).toISOString() },
      target: { url: `${e2e.target.url}/victim` },
      start_at: new Date(startMs).toISOString(),
      end_at: new Date(startMs + MEASURED_SECONDS * 1000 - 500).toISOString(),
    });
    expect(job.status).toBe(201);
    const createMs = Date.now() - createStartMs;
    const floodBefore = floodCalls();
    const floodFromMs = Date.now();
    await sleep(startMs + MEASURED_SECONDS * 1000 - Date.now());
    const floodDuring = floodCalls() - floodBefore;
    // What the flood asked for in the same span: every job once a second.
    const floodAsked = Math.round((FLOOD_JOBS * (Date.now() - floodFromMs)) / 1000);
    const victimCalls = () => e2e.target.calls.filter((call) => call.path === "/victim");
    // Late calls of the window still count: wait for them (bounded) before reading the lateness.
    await waitUntil(() => victimCalls().length >= MEASURED_SECONDS, {
      timeoutMs: 60_000,
      what: `the victim's ${MEASURED_SECONDS} calls`,
    }).catch(() => {});
    const lateness = latenessMs(victimCalls());
    console.log(
      `[flood e2e] victim created in ${createMs} ms; lateness ms: ${lateness.join(", ")}; flood calls in the window ${floodDuring} (asked ${floodAsked})`,
    );
    // The machine cannot start the whole flood: it is a flood, not merely load.
    expect(floodDuring).toBeLessThan(floodAsked);
    expect(new Set(victimCalls().map((call) => call.headers["edgecron-scheduled-at"])).size).toBe(
      MEASURED_SECONDS,
    );
    expect(p95(lateness)).toBeLessThan(2_000);
  }, 240_000);
});
