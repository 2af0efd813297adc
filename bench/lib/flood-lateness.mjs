// The flood scenario's lateness measures beside the flood itself (./flood.mjs): the victim's
// every-second job while `calls` of another tenant's calls hang (their target never answers
// within the job's timeout), and a watch of /healthz for the whole scenario.
import { percentiles } from "./report.mjs";
import { createJobs } from "./scenarios.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The hanging target holds each call this long; the jobs' timeout (60 s) ends them first. */
const HANG_HOLD_MS = 70_000;
const HEALTH_EVERY_MS = 500;
/** A /healthz answer slower than this counts as not answered. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * `calls` one-shot jobs of the hanging tenant, all due at once (a second before the victim's
 * window opens), each calling a target that holds the answer past the job's 60 s timeout; the
 * victim's lateness is measured by `victimWindow` meanwhile. Their jobs are deleted afterwards.
 */
export async function hangWindow(ctx, { victim, hanger, calls, seconds, victimWindow }) {
  const dueMs = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
  const created = await createJobs(hanger, calls, (i) => ({
    name: `hang-${i}`,
    schedule: { type: "once", at: new Date(dueMs).toISOString() },
    target: {
      type: "http",
      url: `${ctx.target.url}/flood-hanging/${i}?hold=${HANG_HOLD_MS}`,
      method: "POST",
    },
    timeout: "60s",
    retry: { max_attempts: 1 },
  }));
  const measured = await victimWindow(ctx, victim, "flood-hang-victim", seconds, null);
  const started = await ctx.target.ask({ type: "stats", scenario: "flood-hanging" });
  await Promise.all(
    created.ids.filter(Boolean).map((id) => hanger.call("DELETE", `/v1/jobs/${id}`).catch(() => {})),
  );
  return {
    hanging_calls: calls,
    hanging_create_failed: created.failed,
    hanging_calls_started: started.calls,
    victim_lateness_hang_ms: measured.lateness,
    victim_missed_hang: measured.missed,
  };
}

/** Polls /healthz until stopped; `stop()` returns whether every poll was answered, and how fast. */
export function watchHealth(baseUrl) {
  const answeredMs = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const ok = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) answeredMs.push(Math.round(performance.now() - t));
      else failed += 1;
      await sleep(HEALTH_EVERY_MS);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { answered_throughout: failed === 0, failed, answer_ms: percentiles(answeredMs) };
  };
}
