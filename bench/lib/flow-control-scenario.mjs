// The flowcontrol scenario: `jobs` one-shot jobs due at one instant, all on one flow-control key
// with a parallelism and a rate limit, against a target that holds each call `hold_ms`. Reports
// the most calls the target saw in progress at once and the most arrivals in any rate period,
// beside the limits: both must stay at or under them, and every run must arrive exactly once.
import { createJobs } from "./scenarios.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const PERIOD_MS = 1_000;

/** Most arrivals within any window of `windowMs` (times sorted ascending). */
function maxInWindow(times, windowMs) {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while (times[end] - times[start] >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export async function flowcontrol(ctx, { jobs, parallelism, rate, hold_ms: holdMs }) {
  const key = `bench-flow-${Date.now().toString(36)}`;
  const leadMs = Math.max(6_000, jobs * 0.4 + 4_000);
  const atMs = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  const atIso = new Date(atMs).toISOString();
  const created = await createJobs(ctx.api, jobs, (i) => ({
    name: `flowcontrol-${i}`,
    schedule: { type: "once", at: atIso },
    target: { type: "http", url: `${ctx.target.url}/flowcontrol/${i}?hold=${holdMs}`, method: "POST" },
    flow_control: { key, parallelism, rate, period: `${PERIOD_MS / 1000}s` },
  }));
  // At the limits, the drain takes at least jobs / min(rate, parallelism * 1000 / hold) seconds.
  const floorS = jobs / Math.min(rate / (PERIOD_MS / 1000), (parallelism * 1000) / holdMs);
  const deadlineMs = atMs + (floorS * 4 + 60) * 1000;
  let states = 0;
  let maxWaiting = 0;
  for (;;) {
    const { calls } = await ctx.target.ask({ type: "count", scenario: "flowcontrol" });
    if (calls >= jobs || Date.now() > deadlineMs) break;
    // The key's state as the API shows it, sampled while it drains.
    const state = await ctx.api.call("GET", `/v1/flow-control/${key}`);
    states += 1;
    maxWaiting = Math.max(maxWaiting, state.waiting);
    await sleep(250);
  }
  await sleep(2_000); // late duplicates, if any
  const stats = await ctx.target.ask({ type: "stats", scenario: "flowcontrol", withReceipts: true });
  const receipts = [...stats.receipts].sort((a, b) => a - b);
  const drainS = (stats.lastMs - atMs) / 1000;
  const maxRate = maxInWindow(receipts, PERIOD_MS);
  return {
    jobs,
    limits: { parallelism, rate_per_s: rate, hold_ms: holdMs },
    max_parallelism_observed: stats.maxInFlight,
    max_starts_in_any_second: maxRate,
    within_limits: stats.maxInFlight <= parallelism && maxRate <= rate,
    received: stats.uniqueKeys,
    missed: jobs - stats.uniqueKeys,
    duplicates: stats.duplicates,
    drain_seconds: Math.round(drainS * 100) / 100,
    drain_floor_seconds: Math.round(floorS * 100) / 100,
    runs_per_s: Math.round(stats.uniqueKeys / drainS),
    max_waiting_reported: maxWaiting,
    state_samples: states,
    create_failed: created.failed,
  };
}
