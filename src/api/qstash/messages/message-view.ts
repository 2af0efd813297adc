// A message job as the client's `Message` type reads it (the `Message` of qstash-js's client).
import type { JobSpec } from "../../../core/jobs/job-spec";
import { queueNameField, queueNameOfFlowKey } from "../../../core/qstash/queue-keys";
import type { StoredJob } from "../../../service/jobs/stored-job";
import type { MessageFacts } from "../filters";
import { DEFAULT_RETRY_DELAY_EXPRESSION } from "./message-job";

/** The job is a /v2 message (created by publish or batch; not a /v1 job). */
export function isMessageJob(job: StoredJob): boolean {
  return job.spec.qstash !== undefined && job.spec.schedule?.type === "once";
}

export function targetUrlOf(spec: JobSpec): string {
  return spec.target.type === "http" ? spec.target.url : spec.name;
}

/** Header values as lists, as QStash returns them. */
export function headerLists(headers: Record<string, string>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
}

/** What the bulk filters select a message by; a schedule's fire overrides `messageId` with its run's. */
export function messageFactsOf(job: StoredJob): MessageFacts {
  const flowControlKey = job.spec.qstash?.flow_control?.key ?? null;
  return {
    messageId: job.id,
    url: targetUrlOf(job.spec),
    labels: job.spec.qstash?.labels ?? [],
    flowControlKey,
    queueName: queueNameOfFlowKey(flowControlKey),
    scheduleId: job.spec.qstash?.schedule_id || null,
    topicName: job.spec.qstash?.topic_name || null,
    createdAtMs: job.createdAtMs,
  };
}

/** The `Message` fields of a job; the DLQ adds its own on top. */
export function messageView(job: StoredJob) {
  const { spec } = job;
  const qstash = spec.qstash;
  const target = spec.target.type === "http" ? spec.target : null;
  const labels = qstash?.labels ?? [];
  const flow = qstash?.flow_control ?? null;
  const expression = spec.retry.delay_expression;
  return {
    messageId: job.id,
    url: targetUrlOf(spec),
    ...(qstash?.topic_name ? { topicName: qstash.topic_name } : {}),
    ...(qstash?.endpoint_name ? { endpointName: qstash.endpoint_name } : {}),
    method: target?.method ?? "POST",
    header: headerLists(target?.headers ?? {}),
    body:
      typeof target?.body === "string"
        ? target.body
        : target?.body === undefined
          ? ""
          : JSON.stringify(target.body),
    maxRetries: spec.retry.max_attempts - 1,
    ...(expression === undefined || expression === DEFAULT_RETRY_DELAY_EXPRESSION
      ? {}
      : { retryDelayExpression: expression }),
    notBefore:
      spec.schedule?.type === "once" && spec.schedule.at !== undefined
        ? Date.parse(spec.schedule.at)
        : job.createdAtMs,
    createdAt: job.createdAtMs,
    ...(qstash?.callback ? { callback: qstash.callback } : {}),
    ...(qstash?.failure_callback ? { failureCallback: qstash.failure_callback } : {}),
    ...(flow === null
      ? {}
      : {
          flowControlKey: flow.key,
          ...queueNameField(flow.key),
          ...(flow.parallelism === null ? {} : { parallelism: flow.parallelism }),
          ...(flow.rate === null ? {} : { rate: flow.rate }),
          ...(flow.period_seconds === null ? {} : { period: flow.period_seconds }),
        }),
    ...(labels.length === 0 ? {} : { label: labels.join(","), labels }),
  };
}
