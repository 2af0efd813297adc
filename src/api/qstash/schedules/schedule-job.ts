// A QStash schedule as an edgecron job, and back: a cron job (the `Upstash-Cron` expression in
// its `CRON_TZ` zone, UTC without one) whose target and policies are a message's
// (../messages/message-job.ts), with `qstash.schedule_id` naming it. Read back in the `Schedule` shape the
// official client parses.
import type { JobCreate } from "../../../core/jobs/job-spec";
import { parseQstashCron } from "../../../core/qstash/cron";
import { MAX_SCHEDULE_ID_LENGTH } from "../../../core/qstash/delivery";
import { queueNameField } from "../../../core/qstash/queue-keys";
import type { StoredJob } from "../../../service/jobs/stored-job";
import type { HeaderError, MessageHeaders } from "../headers";
import { messageJobInput } from "../messages/message-job";
import { isQueueName, QUEUE_NAME_MESSAGE } from "../queues/queues";

/** Every /v2 schedule's job name starts with this (then the schedule id). */
export const SCHEDULE_JOB_PREFIX = "qstash-schedule:";
const SCHEDULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export interface ScheduleHeaders {
  scheduleId: string;
  cron: { expr: string; timezone: string };
  /** `Upstash-Queue-Name`: its fires are limited like the queue's enqueued messages. */
  queueName: string | null;
}

/**
 * The schedule's own headers, checked whatever else is wrong (one 400 names every bad header):
 * `Upstash-Cron` (required), `Upstash-Schedule-Id` (else `generatedId`). `Upstash-Delay` (a delay
 * after every fire) is refused: edgecron has no per-fire delay.
 */
export function readScheduleHeaders(
  headers: Headers,
  generatedId: string,
): { ok: true; schedule: ScheduleHeaders } | { ok: false; errors: HeaderError[] } {
  const read = (name: string) => headers.get(name)?.trim() || null;
  const errors: HeaderError[] = [];
  const cronValue = read("upstash-cron");
  const cron = cronValue === null ? null : parseQstashCron(cronValue);
  if (cron === null) errors.push({ header: "Upstash-Cron", message: "is required for a schedule" });
  else if (!cron.ok) for (const issue of cron.issues) errors.push({ header: "Upstash-Cron", message: issue });
  const scheduleId = read("upstash-schedule-id") ?? generatedId;
  if (scheduleId.length > MAX_SCHEDULE_ID_LENGTH || !SCHEDULE_ID.test(scheduleId)) {
    errors.push({
      header: "Upstash-Schedule-Id",
      message: `must be 1-${MAX_SCHEDULE_ID_LENGTH} letters, digits, '_', '.', ':' or '-'`,
    });
  }
  if (read("upstash-delay") !== null) {
    errors.push({
      header: "Upstash-Delay",
      message: "is not served for schedules (each fire is delivered at its cron instant)",
    });
  }
  const queueName = read("upstash-queue-name");
  if (queueName !== null && !isQueueName(queueName)) {
    errors.push({ header: "Upstash-Queue-Name", message: QUEUE_NAME_MESSAGE });
  }
  if (cron === null || !cron.ok || errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    schedule: { scheduleId, cron: { expr: cron.expr, timezone: cron.timezone }, queueName },
  };
}

/** The /v1 job body of a schedule: a message's (../messages/message-job.ts) with the cron as its schedule. */
export function scheduleJobInput(request: {
  destination: string;
  headers: MessageHeaders;
  schedule: ScheduleHeaders;
  body: string;
  nowMs: number;
  callerIp: string | null;
}): JobCreate {
  const { scheduleId, cron } = request.schedule;
  const message = messageJobInput({ ...request, headers: { ...request.headers, notBeforeMs: null } });
  const { qstash } = message;
  return {
    ...message,
    name: `${SCHEDULE_JOB_PREFIX}${scheduleId}`,
    schedule: { type: "cron", expr: cron.expr, timezone: cron.timezone },
    ...(qstash === undefined
      ? {}
      : { qstash: { ...qstash, schedule_id: scheduleId, caller_ip: request.callerIp } }),
  };
}

/** Run states as QStash's `lastScheduleStates` names them. */
function scheduleStateOf(runState: string): "SUCCESS" | "FAIL" | "IN_PROGRESS" {
  if (runState === "SUCCEEDED") return "SUCCESS";
  if (runState === "DEAD_LETTERED" || runState === "FAILED" || runState === "CANCELLED") return "FAIL";
  return "IN_PROGRESS";
}

export interface ScheduleHistory {
  nextFireMs: number | null;
  /** The latest runs, newest first. */
  recentRuns: { id: string; scheduledAtMs: number; state: string }[];
}

/** The `Schedule` the client's `schedules.get` and `list` return. */
export function scheduleResource(job: StoredJob, history: ScheduleHistory) {
  const { spec } = job;
  const target = spec.target.type === "http" ? spec.target : null;
  const schedule = spec.schedule?.type === "cron" ? spec.schedule : null;
  const qstash = spec.qstash;
  const cron =
    schedule === null
      ? ""
      : schedule.timezone === "UTC"
        ? schedule.expr
        : `CRON_TZ=${schedule.timezone} ${schedule.expr}`;
  const body = target?.body;
  const last = history.recentRuns[0];
  return {
    scheduleId: qstash?.schedule_id ?? job.id,
    cron,
    createdAt: job.createdAtMs,
    destination: target?.url ?? "",
    method: target?.method ?? "POST",
    header: Object.fromEntries(Object.entries(target?.headers ?? {}).map(([name, value]) => [name, [value]])),
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    retries: spec.retry.max_attempts - 1,
    ...(spec.retry.delay_expression === undefined
      ? {}
      : { retryDelayExpression: spec.retry.delay_expression }),
    ...(qstash?.callback ? { callback: qstash.callback } : {}),
    ...(qstash?.failure_callback ? { failureCallback: qstash.failure_callback } : {}),
    ...(qstash?.caller_ip ? { callerIp: qstash.caller_ip } : {}),
    ...flowControlFields(qstash?.flow_control ?? null),
    ...queueNameField(qstash?.flow_control?.key),
    ...(qstash && qstash.labels.length > 0 ? { label: qstash.labels[0], labels: qstash.labels } : {}),
    isPaused: job.status === "PAUSED",
    ...(last === undefined ? {} : { lastScheduleTime: last.scheduledAtMs }),
    ...(history.nextFireMs === null ? {} : { nextScheduleTime: history.nextFireMs }),
    lastScheduleStates: Object.fromEntries(
      history.recentRuns.map((run) => [run.id, scheduleStateOf(run.state)]),
    ),
  };
}

function flowControlFields(
  flow: {
    key: string;
    parallelism: number | null;
    rate: number | null;
    period_seconds: number | null;
  } | null,
) {
  if (flow === null) return {};
  return {
    flowControlKey: flow.key,
    ...(flow.parallelism === null ? {} : { parallelism: flow.parallelism }),
    ...(flow.rate === null ? {} : { rate: flow.rate }),
    ...(flow.period_seconds === null ? {} : { period: flow.period_seconds }),
  };
}
