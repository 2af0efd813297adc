// The flood scenario (npm run bench -- --scenario flood): is one tenant hurt by another's flood?
// A victim tenant's every-second job is measured over the same length of time: alone, while a
// flooding tenant runs `jobs` every-second jobs of its own, and while `hang_calls` calls of a
// third tenant hang (./flood-lateness.mjs). Then the flooder deletes all of its jobs while the
// flood runs: how long the DELETEs take, and how many of its calls still reach the target after
// they answered. /healthz is polled throughout. Not in the default set: a full run takes minutes.
// Last, the control actions on fresh flooding tenants: the DELETEs again, a bulk delete and a
// tenant suspend (./flood-control-actions.mjs). The result ends with the targets checked
// (./flood-targets.mjs).

import { floodControlActions } from "./flood-control-actions.mjs";
import { hangWindow, watchHealth } from "./flood-lateness.mjs";
import { floodTargets } from "./flood-targets.mjs";
import { percentiles } from "./report.mjs";
import { ADMIN_TOKEN, workerdMemory } from "./runtime.mjs";
import { apiClient, createJobs } from "./scenarios.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** DELETEs in flight at once when the flooder removes its jobs. */
const DELETES_IN_FLIGHT = 16;
/** The flooder's calls count as stopped once none arrived for this long. */
const QUIET_AFTER_DELETES_MS = 5_000;
const DELETE_DEADLINE_MS = 300_000;

export async function flood(ctx, { jobs, seconds, hang_calls: hangCalls = 0 }) {
  const stopHealth = watchHealth(ctx.runtime.url);
  const victim = await apiClient(ctx.runtime.url, ADMIN_TOKEN);
  const flooder = await apiClient(ctx.runtime.url, ADMIN_TOKEN);
  const quiet = await victimWindow(ctx, victim, "flood-quiet", seconds, null);
  const hang =
    hangCalls > 0
      ? await hangWindow(ctx, {
          victim,
          hanger: await apiClient(ctx.runtime.url, ADMIN_TOKEN),
          calls: hangCalls,
          seconds,
          victimWindow,
        })
      : {};

  const floodEndMs = Date.now() + seconds * 1000 + 120_000;
  const created = await createJobs(flooder, jobs, (i) => ({
    name: `flood-${i}`,
    schedule: { type: "interval", every: "1s" },
    target: { type: "http", url: `${ctx.target.url}/flood-flooder/${i}`, method: "POST" },
    // A bound in case the DELETEs below never land: the flood ends by itself.
    end_at: new Date(floodEndMs).toISOString(),
  }));
  const flooded = await victimWindow(ctx, victim, "flood-victim", seconds, created);
  const deletes = await deleteAll(ctx, flooder, created.ids.filter(Boolean));
  const result = {
    jobs,
    seconds,
    create_failed: created.failed,
    victim_lateness_quiet_ms: quiet.lateness,
    victim_lateness_flood_ms: flooded.lateness,
    victim_missed: { quiet: quiet.missed, flood: flooded.missed },
    victim_run_path: { quiet: quiet.runPath, flood: flooded.runPath },
    api_read_ms: { quiet: quiet.apiReadMs, flood: flooded.apiReadMs },
    flooder_calls_during_window: flooded.flooderCalls,
    ...hang,
    ...deletes,
    control_actions: await floodControlActions(ctx, { jobs }),
    healthz: await stopHealth(),
    workerd: workerdMemory(),
  };
  return { ...result, targets: floodTargets(result) };
}

/**
 * One every-second victim job over `seconds` (from a start a few seconds ahead), with a GET of it
 * each second to see whether the API still answers. Returns its lateness at the target.
 */
async function victimWindow(ctx, victim, scenario, seconds, flood) {
  const startMs = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
  const endMs = startMs + seconds * 1000;
  const job = await victim.call("POST", "/v1/jobs", {
    name: scenario,
    schedule: { type: "interval", every: "1s", anchor: new Date(startMs).toISOString() },
    target: { type: "http", url: `${ctx.target.url}/${scenario}/victim`, method: "POST" },
    start_at: new Date(startMs).toISOString(),
    end_at: new Date(endMs - 500).toISOString(),
  });
  const flooderBefore = flood
    ? (await ctx.target.ask({ type: "count", scenario: "flood-flooder" })).calls
    : 0;
  const apiReadMs = [];
  while (Date.now() < endMs) {
    const t = performance.now();
    const ok = await victim.call("GET", `/v1/jobs/${job.id}`).then(
      () => true,
      () => false,
    );
    apiReadMs.push(ok ? Math.round(performance.now() - t) : Number.POSITIVE_INFINITY);
    await sleep(1_000);
  }
  const flooderCalls = flood
    ? (await ctx.target.ask({ type: "count", scenario: "flood-flooder" })).calls - flooderBefore
    : 0;
  // Late calls of the window still count: wait for them (bounded) before reading the lateness.
  const deadline = Date.now() + 120_000;
  let stats = await ctx.target.ask({ type: "stats", scenario, withLateness: true });
  while (stats.uniqueKeys < seconds && Date.now() < deadline) {
    await sleep(500);
    stats = await ctx.target.ask({ type: "stats", scenario, withLateness: true });
  }
  const runPath = await victimRunPath(victim, job.id);
  await victim.call("DELETE", `/v1/jobs/${job.id}`).catch(() => {});
  const failedReads = apiReadMs.filter((ms) => !Number.isFinite(ms)).length;
  return {
    lateness: percentiles(stats.lateness),
    missed: seconds - stats.uniqueKeys,
    apiReadMs: { ...percentiles(apiReadMs.filter(Number.isFinite)), failed: failedReads },
    flooderCalls,
    runPath,
  };
}

/**
 * How the victim's runs went, from their history: how many were sent ahead of their instant
 * (held by the consumer until it) rather than sent at it, and when each was claimed (its RUNNING
 * event) after its instant.
 */
async function victimRunPath(victim, jobId) {
  const page = await victim.call("GET", `/v1/runs?job_id=${jobId}&limit=100`).catch(() => ({ data: [] }));
  let sentAhead = 0;
  const claimAfterInstantMs = [];
  const sentBeforeInstantMs = [];
  for (const run of page.data ?? []) {
    const events = run.events ?? [];
    const instantMs = Date.parse(run.scheduled_at);
    if (events.some((event) => String(event.reason ?? "").includes("ahead of its instant"))) sentAhead += 1;
    const sent = events.find((event) => event.state === "DISPATCHED");
    if (sent) sentBeforeInstantMs.push(instantMs - Date.parse(sent.at));
    const running = events.find((event) => event.state === "RUNNING");
    if (running) claimAfterInstantMs.push(Date.parse(running.at) - instantMs);
  }
  return {
    runs: (page.data ?? []).length,
    sent_ahead: sentAhead,
    sent_before_instant_ms: percentiles(sentBeforeInstantMs),
    claim_after_instant_ms: percentiles(claimAfterInstantMs),
  };
}

/** Deletes every flood job during the flood; then counts the flooder's calls that still came. */
async function deleteAll(ctx, flooder, ids) {
  const startedMs = Date.now();
  const latencies = [];
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const t = performance.now();
      try {
        await flooder.call("DELETE", `/v1/jobs/${id}`);
        latencies.push(Math.round(performance.now() - t));
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: DELETES_IN_FLIGHT }, worker));
  const answeredMs = Date.now();
  const atAnswer = (await ctx.target.ask({ type: "count", scenario: "flood-flooder" })).calls;
  let last = atAnswer;
  let lastChangeMs = Date.now();
  while (Date.now() - lastChangeMs < QUIET_AFTER_DELETES_MS && Date.now() - answeredMs < DELETE_DEADLINE_MS) {
    await sleep(250);
    const { calls } = await ctx.target.ask({ type: "count", scenario: "flood-flooder" });
    if (calls !== last) {
      last = calls;
      lastChangeMs = Date.now();
    }
  }
  return {
    deletes: ids.length,
    deletes_failed: failed,
    delete_ms: percentiles(latencies),
    deletes_answered_after_ms: answeredMs - startedMs,
    flooder_calls_after_deletes: last - atAnswer,
    flooder_calls_stopped_after_ms: Math.max(0, lastChangeMs - answeredMs),
  };
}
