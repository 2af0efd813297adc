// The consumer's lease renewals (src/delivery/lease-renewals.ts): every held run is renewed each
// period at its shard, and a shard slow to answer holds back no other shard's renewals.
import { describe, expect, it } from "vitest";
import { LEASE_RENEW_EVERY_MS } from "../../src/core/runs/run-leases";
import { LeaseRenewals } from "../../src/delivery/lease-renewals";

const noEnv = {} as Env;

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("LeaseRenewals", () => {
  it("keeps renewing one shard's runs every period while another shard never answers", async () => {
    const calls: number[] = [];
    const renewals = new LeaseRenewals(noEnv, (shard) => {
      calls.push(shard);
      // Shard 1 is stuck (a long pass, a restore): its renewal never answers.
      return shard === 1 ? new Promise(() => {}) : Promise.resolve(1);
    });
    renewals.hold([
      { shard: 1, runId: "run_a", fence: 1 },
      { shard: 2, runId: "run_b", fence: 1 },
    ]);
    await waitFor(() => calls.filter((shard) => shard === 2).length >= 3, 10 * LEASE_RENEW_EVERY_MS);
    // The stuck shard is asked once and not again while its answer is due: no pile of RPCs.
    expect(calls.filter((shard) => shard === 1)).toHaveLength(1);
    renewals.release("run_a");
    renewals.release("run_b");
  });

  it("stops once nothing is held", async () => {
    const calls: number[] = [];
    const renewals = new LeaseRenewals(noEnv, async (shard) => {
      calls.push(shard);
    });
    renewals.hold([{ shard: 3, runId: "run_c", fence: 2 }]);
    await waitFor(() => calls.length >= 1, 5 * LEASE_RENEW_EVERY_MS);
    renewals.release("run_c");
    const afterRelease = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 2.5 * LEASE_RENEW_EVERY_MS));
    expect(calls.length).toBeLessThanOrEqual(afterRelease + 1);
  });
});
