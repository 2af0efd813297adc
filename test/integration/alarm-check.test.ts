// The no-alarm-left check (test/helpers/no-alarm-left.ts) sees what a test leaves armed; this
// file does not opt out, so it also proves the check passes once the test cleans up.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dispatchLeadMs } from "../../durable-objects/shard/dispatch/pass-settings";
import { armedAlarms, disarmAll, maintenanceStub } from "../helpers/alarms";
import { placeJob, seedTenant, snapshot, spec, stubFor, targetUrl, uniqueJobId } from "../helpers/scheduling";

describe("the no-alarm-left check", () => {
  it("sees the alarm a scheduled job arms on its shard, and none once it is disarmed", async () => {
    await seedTenant();
    const jobId = uniqueJobId("armed");
    // The shard wakes a lead window before the instant, to send its run ahead (shard/ahead.ts).
    const fireAtMs = Date.now() + 3_600_000;
    const alarmAtMs = fireAtMs - dispatchLeadMs(env.DISPATCH_LEAD_MS);
    const jobSpec = spec({
      schedule: { type: "once", at: new Date(fireAtMs).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    const shard = await placeJob(snapshot(jobId, jobSpec));
    expect(await armedAlarms()).toContainEqual({ name: `shard-${shard}`, alarmAtMs });
    await disarmAll();
    expect(await armedAlarms()).toEqual([]);
    // Disarmed through the shard's hook: its next write re-arms as usual.
    await placeJob(snapshot(jobId, jobSpec, 2));
    expect(await armedAlarms()).toContainEqual({ name: `shard-${shard}`, alarmAtMs });
    await stubFor(jobId).upsertJobs(shard, [snapshot(jobId, jobSpec, 3, "DELETED")]);
    expect(await armedAlarms()).toEqual([]);
  });

  it("sees alarms on a Durable Object the test named itself", async () => {
    const maintenance = maintenanceStub();
    await runInDurableObject(maintenance, (_instance, state: DurableObjectState) =>
      state.storage.setAlarm(Date.now() + 60_000),
    );
    expect((await armedAlarms()).map(({ name }) => name)).toEqual([expect.stringMatching(/^maintenance-/)]);
    await disarmAll();
    expect(await armedAlarms()).toEqual([]);
  });
});
