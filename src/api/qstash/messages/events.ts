// GET /v2/events (and /v2/logs, the docs' name): a message's life as QStash log events, read from
// our run history (each run's recorded transitions, kept in the shard that owns the run), newest
// first. Asked by message id, one shard request per message; tenant-wide, every shard is asked
// and the pages merged (src/service/run-history.ts).
import { Hono } from "hono";
import { base64OfText } from "../../../core/common/encoding";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { messageJobsByIds } from "../../../service/qstash/messages";
import { listTenantRunRecords } from "../../../service/run-history";
import type { HistoryRecord } from "../../../shard/history-protocol";
import type { AppEnv } from "../../http/app-env";
import { decodeTimeCursor, encodeCursor } from "../../http/cursor";
import { bulkQueryOf, EVENTS_ROUTE } from "../filters";
import { headerLists, messageFactsOf, targetUrlOf } from "./message-view";

/** Our run states as QStash's log states. */
const LOG_STATES: Record<string, string> = {
  SCHEDULED: "CREATED",
  ACQUIRED: "ACTIVE",
  DISPATCHED: "ACTIVE",
  RUNNING: "IN_PROGRESS",
  SUCCEEDED: "DELIVERED",
  FAILED: "ERROR",
  RETRYING: "RETRY",
  DEAD_LETTERED: "FAILED",
  SKIPPED: "CANCELED",
  CANCELLED: "CANCELED",
};

interface RunEvent {
  state?: unknown;
  at_ms?: unknown;
  reason?: unknown;
  attempt?: unknown;
}

/** Every recorded transition of a run as a Log, newest first. */
function logsOfRun(run: HistoryRecord, job: StoredJob) {
  let events: RunEvent[] = [];
  try {
    const parsed: unknown = JSON.parse(run.events_json);
    if (Array.isArray(parsed)) events = parsed as RunEvent[];
  } catch {
    // An unreadable history is shown as no events rather than failing the page.
  }
  return events
    .map((event) => {
      const state = LOG_STATES[String(event.state)] ?? "ACTIVE";
      const failed = state === "ERROR" || state === "RETRY" || state === "FAILED";
      return {
        ...baseLog(job, typeof event.at_ms === "number" ? event.at_ms : run.updated_at_ms, state),
        ...(state === "RETRY" && run.next_attempt_at_ms !== null
          ? { nextDeliveryTime: run.next_attempt_at_ms }
          : {}),
        ...(failed && typeof event.reason === "string" ? { error: event.reason } : {}),
        ...(state === "DELIVERED" || failed ? { responseStatus: run.target_status ?? 0 } : {}),
      };
    })
    .reverse();
}

/** What every Log of a message carries. */
function baseLog(job: StoredJob, timeMs: number, state: string) {
  const target = job.spec.target.type === "http" ? job.spec.target : null;
  const labels = job.spec.qstash?.labels ?? [];
  return {
    time: timeMs,
    state,
    messageId: job.id,
    url: targetUrlOf(job.spec),
    header: headerLists(target?.headers ?? {}),
    body: base64OfText(typeof target?.body === "string" ? target.body : ""),
    ...(labels.length === 0 ? {} : { label: labels.join(","), labels }),
  };
}

function createdLog(job: StoredJob) {
  const notBeforeMs =
    job.spec.schedule?.type === "once" && job.spec.schedule.at ? Date.parse(job.spec.schedule.at) : null;
  return {
    ...baseLog(job, job.createdAtMs, "CREATED"),
    ...(notBeforeMs === null ? {} : { nextDeliveryTime: notBeforeMs }),
  };
}

export const events = new Hono<AppEnv>();

events.get("/", async (c) => {
  const url = new URL(c.req.url);
  const query = bulkQueryOf(url, EVENTS_ROUTE);
  const tenantId = c.get("tenantId");
  // The deprecated `messageId` filter names messages as `messageIds` does (and is matched besides).
  const ids = [...new Set([...query.ids, ...url.searchParams.getAll("messageId")])];
  const runs = await runsOf(c.env, tenantId, ids, query.cursor, query.count + 1);
  const page = runs.slice(0, query.count);
  const last = page[page.length - 1];
  const cursor =
    runs.length > query.count && last !== undefined ? encodeCursor([last.scheduled_at_ms, last.id]) : null;
  const jobs = await messageJobsByIds(c.env, tenantId, [...page.map((run) => run.job_id), ...ids]);
  const logs = page.flatMap((run) => {
    const job = jobs.get(run.job_id);
    return job?.spec.qstash === undefined ? [] : logsOfRun(run, job);
  });
  // A message asked for by id whose first delivery is still ahead has no run yet: it was created.
  for (const id of ids) {
    const job = jobs.get(id);
    if (job?.spec.qstash !== undefined && !page.some((run) => run.job_id === id)) logs.push(createdLog(job));
  }
  const selected = logs.filter((log) => {
    const job = jobs.get(log.messageId);
    return (
      job !== undefined && query.matches({ ...messageFactsOf(job), createdAtMs: log.time, state: log.state })
    );
  });
  selected.sort((a, b) => b.time - a.time);
  return c.json({ events: selected, ...(cursor === null ? {} : { cursor }) });
});

/** The runs of these messages (each from its job's shard), or the tenant's runs from the cursor. */
async function runsOf(env: Env, tenantId: string, jobIds: string[], cursor: string | null, limit: number) {
  if (jobIds.length === 0) {
    return listTenantRunRecords(env, tenantId, { cursor: decodeTimeCursor(cursor ?? undefined), limit });
  }
  const perJob = await Promise.all(
    jobIds.map((jobId) => listTenantRunRecords(env, tenantId, { jobId, limit })),
  );
  return perJob
    .flat()
    .sort((a, b) => b.scheduled_at_ms - a.scheduled_at_ms)
    .slice(0, limit);
}
