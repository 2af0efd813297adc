// The control-action part of the flood scenario: while a tenant floods with every-second jobs,
// how fast do its control actions answer, and do its calls stop? Three rounds, each on a fresh
// flooding tenant with `jobs` jobs to a fast sink: DELETE of every job (8 in flight), one bulk
// delete (POST /v1/jobs/bulk), one tenant suspend. For each: how long it took, the answer times
// (p99), and the calls that still started more than 1 s after the action answered (the target
// is 0). Called by ./flood.mjs; exported so other scenarios can run it too.
import { percentiles } from "./report.mjs";
import { ADMIN_TOKEN } from "./runtime.mjs";
import { apiClient, createJobs } from "./scenarios.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const DELETES_IN_FLIGHT = 8;
/** A call that starts later than this after its action answered counts as a late call. */
const STOP_WITHIN_MS = 1_000;
/** The flood runs this long before the action, so the shards are saturated when it lands. */
const FLOOD_BEFORE_ACTION_MS = 5_000;
/** After the action, calls are counted until none came for this long. */
const QUIET_MS = 3_000;
const QUIET_DEADLINE_MS = 60_000;

export async function floodControlActions(ctx, { jobs }) {
  return {
    jobs,
    deletes: await deleteRound(ctx, jobs),
    bulk_delete: await wholeTenantRound(ctx, jobs, "fca-bulk", (flooder) =>
      flooder.call("POST", "/v1/jobs/bulk", { action: "delete", all: true }),
    ),
    suspend: await wholeTenantRound(ctx, jobs, "fca-suspend", (flooder) =>
      adminCall(ctx, "POST", `/v1/tenants/${flooder.tenantId}/suspend`),
    ),
  };
}

/** A flooding tenant with `jobs` every-second jobs; `pathOf(i)` names job i's target path. */
async function startFlood(ctx, jobs, pathOf) {
  const flooder = await apiClient(ctx.runtime.url, ADMIN_TOKEN);
  const endAt = new Date(Date.now() + 600_000).toISOString();
  const created = await createJobs(flooder, jobs, (i) => ({
    name: `fca-${i}`,
    schedule: { type: "interval", every: "1s" },
    target: { type: "http", url: `${ctx.target.url}/${pathOf(i)}`, method: "POST" },
    // A bound in case the action never lands: the flood ends by itself.
    end_at: endAt,
  }));
  await sleep(FLOOD_BEFORE_ACTION_MS);
  return { flooder, ids: created.ids, createFailed: created.failed };
}

/** Every job deleted one by one; each job's calls go to its own target path to tell them apart. */
async function deleteRound(ctx, jobs) {
  const tag = `fca-del-${Date.now().toString(36)}`;
  const { flooder, ids, createFailed } = await startFlood(ctx, jobs, (i) => `${tag}-${i}`);
  const answeredAtMs = new Array(ids.length).fill(null);
  const latencies = [];
  let failed = 0;
  let next = 0;
  const startedMs = Date.now();
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      if (!ids[i]) continue;
      const t = performance.now();
      try {
        await flooder.call("DELETE", `/v1/jobs/${ids[i]}`);
        latencies.push(Math.round(performance.now() - t));
        answeredAtMs[i] = Date.now();
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: DELETES_IN_FLIGHT }, worker));
  const doneMs = Date.now() - startedMs;
  await sleep(STOP_WITHIN_MS + QUIET_MS);
  let lateJobs = 0;
  let startedLateJobs = 0;
  let worstLateMs = 0;
  let worstStartedLateMs = null;
  for (let i = 0; i < ids.length; i++) {
    if (answeredAtMs[i] === null) continue;
    const { lastMs } = await ctx.target.ask({ type: "stats", scenario: `${tag}-${i}` });
    const lateMs = (lastMs ?? 0) - answeredAtMs[i];
    worstLateMs = Math.max(worstLateMs, lateMs);
    if (lateMs <= STOP_WITHIN_MS) continue;
    lateJobs += 1;
    // A call that arrived late may have started in time (a busy target, a slow connection): what
    // the delete must stop is the call's start, its claim, which the run's history records.
    const startedMs = await latestCallStartMs(flooder, ids[i]);
    const startedLateMs = startedMs === null ? null : startedMs - answeredAtMs[i];
    if (startedLateMs !== null && startedLateMs > STOP_WITHIN_MS) startedLateJobs += 1;
    if (startedLateMs !== null)
      worstStartedLateMs = Math.max(worstStartedLateMs ?? startedLateMs, startedLateMs);
  }
  return {
    in_flight: DELETES_IN_FLIGHT,
    create_failed: createFailed,
    failed,
    done_ms: doneMs,
    answer_ms: percentiles(latencies),
    jobs_with_a_call_over_1s_after_their_delete: lateJobs,
    latest_call_after_delete_ms: worstLateMs,
    // Of those, the jobs whose call also started (was claimed) more than 1 s after the answer.
    jobs_with_a_call_started_over_1s_after_their_delete: startedLateJobs,
    latest_call_start_after_delete_ms: worstStartedLateMs,
  };
}

/** When the job's latest call started: its newest run's last RUNNING event (the claim). */
async function latestCallStartMs(client, jobId) {
  const page = await client.call("GET", `/v1/runs?job_id=${jobId}&limit=5`);
  let latestMs = null;
  for (const run of page.data) {
    for (const event of run.events ?? []) {
      if (event.state !== "RUNNING") continue;
      const atMs = Date.parse(event.at);
      latestMs = latestMs === null ? atMs : Math.max(latestMs, atMs);
    }
  }
  return latestMs;
}

/** One action stopping the whole flood (bulk delete, suspend): calls after it answered. */
async function wholeTenantRound(ctx, jobs, scenarioPrefix, act) {
  const scenario = `${scenarioPrefix}-${Date.now().toString(36)}`;
  const { flooder, createFailed } = await startFlood(ctx, jobs, () => scenario);
  const t = performance.now();
  let error = null;
  let answer = null;
  try {
    answer = await act(flooder);
  } catch (caught) {
    error = String(caught);
  }
  const answerMs = Math.round(performance.now() - t);
  // A bulk call that went on after a 202: its jobs stop when it is done, counted from then.
  if (answer?.status_url) answer = await untilDone(flooder, answer);
  const doneMs = Math.round(performance.now() - t);
  await sleep(STOP_WITHIN_MS);
  const atGrace = (await ctx.target.ask({ type: "count", scenario })).calls;
  let last = atGrace;
  let lastChangeMs = Date.now();
  const startMs = Date.now();
  while (Date.now() - lastChangeMs < QUIET_MS && Date.now() - startMs < QUIET_DEADLINE_MS) {
    await sleep(250);
    const { calls } = await ctx.target.ask({ type: "count", scenario });
    if (calls !== last) {
      last = calls;
      lastChangeMs = Date.now();
    }
  }
  return {
    create_failed: createFailed,
    error,
    answer_ms: answerMs,
    done_ms: doneMs,
    answered_202: answer?.state !== undefined,
    calls_over_1s_after_answer: last - atGrace,
  };
}

/** Reads a bulk operation until it is no longer running (bounded). */
async function untilDone(client, operation) {
  const deadline = Date.now() + QUIET_DEADLINE_MS;
  let current = operation;
  while (current.state === "running" && Date.now() < deadline) {
    await sleep(100);
    current = await client.call("GET", operation.status_url);
  }
  return current;
}

async function adminCall(ctx, method, path) {
  const res = await fetch(`${ctx.runtime.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}
