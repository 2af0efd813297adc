// /v2/schedules: QStash schedules as edgecron cron jobs (schedule-job.ts). Create upserts by
// `Upstash-Schedule-Id`; get, list, delete, pause and resume (PATCH as the client sends, POST as
// the docs say). Mounted by the /v2 app after its authentication; errors are thrown as
// EdgecronError and answered in QStash's shape by the app's error handler.

import { Hono } from "hono";
import { queueFlowKey } from "../../../core/qstash/queue-keys";
import { newId } from "../../../service/ids";
import { saveJobVersion } from "../../../service/job-writes";
import { checkJobFor } from "../../../service/jobs/job-check";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { nextFireTimesOf } from "../../../service/next-fires";
import { ensureQueues, queueParallelism } from "../../../service/qstash/queues";
import {
  listSchedules,
  readSchedule,
  setScheduleStatus,
  upsertSchedule,
} from "../../../service/qstash/schedules";
import { listJobRunRecords } from "../../../service/run-history";
import type { AppEnv } from "../../http/app-env";
import { clientAddressOf } from "../../http/client-address";
import { checkDestination, rawDestinationOf } from "../destination";
import { badRequest, notFound } from "../errors";
import { type HeaderError, parseMessageHeaders } from "../headers";
import { headerErrorsOf } from "../messages/message-job";
import { bodyText } from "../messages/message-service";
import { isUrlGroupName } from "../url-groups/url-group-publish";
import { readScheduleHeaders, scheduleJobInput, scheduleResource } from "./schedule-job";

export const qstashSchedules = new Hono<AppEnv>();

/** QStash lists every schedule at once; we answer at most this many, newest first. */
const MAX_LISTED_SCHEDULES = 1_000;
const RECENT_RUNS = 5;
const ROUTE_PREFIX = "/v2/schedules/";

qstashSchedules.get("/", async (c) => {
  const jobs = await listSchedules(c.env, c.get("tenantId"), MAX_LISTED_SCHEDULES);
  const nowMs = Date.now();
  return c.json(
    jobs.map((job) => scheduleResource(job, { nextFireMs: nextFireMs(job, nowMs), recentRuns: [] })),
  );
});

qstashSchedules.get("/:id", async (c) => {
  const job = await loadSchedule(c.env, c.get("tenantId"), c.req.param("id"));
  // Run history lives in the job's shard (newest scheduled instant first).
  const runs = await listJobRunRecords(c.env, job, job.tenantId, { limit: RECENT_RUNS });
  return c.json(
    scheduleResource(job, {
      nextFireMs: nextFireMs(job, Date.now()),
      recentRuns: runs.map((run) => ({ id: run.id, scheduledAtMs: run.scheduled_at_ms, state: run.state })),
    }),
  );
});

qstashSchedules.delete("/:id", async (c) => {
  const job = await loadSchedule(c.env, c.get("tenantId"), c.req.param("id"));
  await saveJobVersion(c.env, job, { status: "DELETED" }, Date.now());
  return c.json({ deleted: true });
});

for (const method of ["patch", "post"] as const) {
  qstashSchedules.on(method.toUpperCase(), "/:id/pause", (c) =>
    changeStatus(c.env, c.get("tenantId"), c.req.param("id"), "PAUSED"),
  );
  qstashSchedules.on(method.toUpperCase(), "/:id/resume", (c) =>
    changeStatus(c.env, c.get("tenantId"), c.req.param("id"), "ACTIVE"),
  );
}

// Last: the destination is the rest of the raw path (with `//` and the query), so this catches
// every POST that is not a pause or resume.
qstashSchedules.post("/*", async (c) => {
  const nowMs = Date.now();
  const tenantId = c.get("tenantId");
  const rawDestination = rawDestinationOf(c.req.url, ROUTE_PREFIX);
  const checked = checkDestination(rawDestination);
  // A schedule's fires are runs of one job with one target; fanning each fire out to a group's
  // endpoints would need a job per endpoint, so a group is refused rather than half served.
  const destination =
    !checked.ok && isUrlGroupName(rawDestination)
      ? {
          ok: false as const,
          error: "a schedule to a URL group is not served: create one schedule per endpoint URL",
        }
      : checked;
  const parsed = parseMessageHeaders(c.req.raw.headers, nowMs);
  const schedule = readScheduleHeaders(c.req.raw.headers, newId("scd", nowMs));
  const errors: HeaderError[] = [
    ...(schedule.ok ? [] : schedule.errors),
    ...(parsed.ok ? [] : parsed.errors),
    ...(destination.ok
      ? []
      : [{ header: "destination", message: destination.error.replace(/^destination: /, "") }]),
  ];
  const body = bodyText(new Uint8Array(await c.req.arrayBuffer()), errors);
  const queueName = schedule.ok ? schedule.schedule.queueName : null;
  if (parsed.ok && queueName !== null) {
    // As an enqueue does: the queue's parallelism becomes the fires' flow control.
    if (parsed.headers.flowControl !== null) {
      errors.push({ header: "Upstash-Flow-Control-Key", message: "cannot be combined with a queue" });
    }
    const parallelism = await queueParallelism(c.env, tenantId, queueName);
    parsed.headers.flowControl = {
      key: queueFlowKey(queueName),
      parallelism,
      rate: null,
      periodSeconds: null,
    };
  }
  if (!parsed.ok || !destination.ok || !schedule.ok || body === null || errors.length > 0) {
    throw badRequest(errors);
  }
  const input = scheduleJobInput({
    destination: destination.url,
    headers: parsed.headers,
    schedule: schedule.schedule,
    body,
    nowMs,
    callerIp: clientAddressOf(c.req.raw, c.env),
  });
  const check = checkJobFor(c.env, tenantId, input, nowMs);
  if (!check.ok) throw badRequest(headerErrorsOf(check.errors));
  const { scheduleId } = schedule.schedule;
  await upsertSchedule(c.env, tenantId, scheduleId, check.spec, nowMs);
  if (queueName !== null) await ensureQueues(c.env, tenantId, [queueName], nowMs);
  return c.json({ scheduleId });
});

/** Pause or resume; already there answers as it is. A finished schedule cannot change. */
async function changeStatus(
  env: Env,
  tenantId: string,
  scheduleId: string,
  to: "ACTIVE" | "PAUSED",
): Promise<Response> {
  if (!(await setScheduleStatus(env, tenantId, scheduleId, to, Date.now()))) {
    throw notFound(`schedule ${scheduleId} not found`);
  }
  return Response.json({ scheduleId, isPaused: to === "PAUSED" });
}

async function loadSchedule(env: Env, tenantId: string, scheduleId: string): Promise<StoredJob> {
  const job = await readSchedule(env, tenantId, scheduleId);
  if (job === null) throw notFound(`schedule ${scheduleId} not found`);
  return job;
}

function nextFireMs(job: StoredJob, nowMs: number): number | null {
  const [next] = nextFireTimesOf(job, nowMs, 1);
  return next === undefined ? null : Date.parse(next);
}
