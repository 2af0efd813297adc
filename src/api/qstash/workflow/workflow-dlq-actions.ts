// What the workflow DLQ's actions do to one entry (./workflow-dlq.ts selects them). Each goes
// through the paths a step already takes: a resume is a redrive of the dead letter (the same
// message, so the SDK reads the same steps back), a restart a new run published as the SDK's
// first message would be, a callback retry the failure callback the dead letter enqueued.
import { qstashRunContextOf } from "../../../core/qstash/delivery";
import { jobStores } from "../../../db/databases";
import { findStoredJob } from "../../../db/job-store";
import { deleteDeadLetters } from "../../../db/qstash";
import {
  endWorkflowRun,
  listWorkflowSteps,
  reopenFailedWorkflowRun,
  type WorkflowRunRow,
} from "../../../db/qstash-workflow-runs";
import { failureCallbackDeliveries } from "../../../queue/qstash-callback-deliveries";
import { enqueueSideDeliveries } from "../../../queue/side-delivery-queue";
import { failureCallbackExtras } from "../../../service/failure-callbacks";
import { newId } from "../../../service/ids";
import { redriveDeadLetter } from "../../../service/redrive";
import { refuseWhileSuspended } from "../../../service/suspension";
import type { DeadLetterMessage } from "../../../shard/protocol";
import type { DlqEntry } from "../dlq/dlq";
import { badRequest } from "../errors";
import { prepareMessage } from "../messages/message-service";
import { storeMessages } from "../messages/publish";

/** A workflow DLQ entry: the dead letter, its step message and its run. */
export interface WorkflowDlqEntry extends DlqEntry {
  run: WorkflowRunRow;
}

/** What the SDK reads back for each resumed or restarted run. */
export interface ResumedRun {
  workflowRunId: string;
  workflowCreatedAt: number;
}

/** The options a resume or restart may carry (`retries`, `flowControl`), as the SDK sends them. */
const OPTION_HEADERS = ["upstash-retries", "upstash-flow-control-key", "upstash-flow-control-value"];

/**
 * The failed step again, in the same run: the run is started again first, so the redelivered
 * step finds its steps served; if the redrive is refused the run is failed again.
 */
export async function resumeRun(env: Env, entry: WorkflowDlqEntry): Promise<ResumedRun> {
  const { run, letter } = entry;
  await refuseWhileSuspended(env, run.tenant_id, "resume a workflow run");
  const nowMs = Date.now();
  await reopenFailedWorkflowRun(env.DB, run.tenant_id, run.run_id, nowMs);
  try {
    await redriveDeadLetter(env, run.tenant_id, letter);
  } catch (error) {
    await endWorkflowRun(env.DB, run.tenant_id, run.run_id, { state: "RUN_FAILED", result: null }, nowMs);
    throw error;
  }
  return { workflowRunId: run.run_id, workflowCreatedAt: run.created_at_ms };
}

/**
 * The run from its start, as a new run: its first message published again with a new run id,
 * its stored initial body and settings (the request's retries or flow control replace them);
 * the entry leaves the DLQ.
 */
export async function restartRun(env: Env, entry: WorkflowDlqEntry, options: Headers): Promise<ResumedRun> {
  const { run } = entry;
  const nowMs = Date.now();
  const [first] = await listWorkflowSteps(env.DB, run.tenant_id, run.run_id, 1);
  const initial =
    first === undefined ? null : await findStoredJob(jobStores(env), run.tenant_id, first.message_id);
  const target = initial?.spec.target.type === "http" ? initial.spec.target : null;
  const runId = newId("wfr", nowMs);
  const headers = firstMessageHeaders(run, target?.headers ?? {}, options, runId);
  if (target !== null) headers.set("upstash-method", target.method);
  const labels = initial?.spec.qstash?.labels ?? [];
  if (labels.length > 0) headers.set("upstash-label", labels.join(","));
  const prepared = await prepareMessage({
    env,
    tenantId: run.tenant_id,
    destination: target?.url ?? run.url,
    headers,
    body:
      first === undefined
        ? new Uint8Array(0)
        : Uint8Array.from(atob(first.body_base64), (c) => c.charCodeAt(0)),
    nowMs,
  });
  await storeMessages(env, [prepared], { tenantId: run.tenant_id, nowMs });
  await deleteDeadLetters(env.DB, run.tenant_id, [entry.letter.id]);
  return { workflowRunId: runId, workflowCreatedAt: nowMs };
}

function firstMessageHeaders(
  run: WorkflowRunRow,
  targetHeaders: Record<string, string>,
  options: Headers,
  runId: string,
): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(targetHeaders)) headers.set(`upstash-forward-${name}`, value);
  for (const [name, value] of Object.entries(JSON.parse(run.settings) as Record<string, string>))
    headers.set(name, value);
  for (const name of OPTION_HEADERS) {
    const value = options.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set("upstash-workflow-init", "true");
  headers.set("upstash-workflow-runid", runId);
  headers.set("upstash-workflow-url", run.url);
  return headers;
}

/**
 * The entry's failure callback once more, with the answer its dead letter recorded. Each retry
 * is a delivery of its own (its id names the moment), so an earlier one does not dedupe it.
 */
export async function retryFailureCallback(env: Env, entry: WorkflowDlqEntry): Promise<ResumedRun> {
  const { letter, job, run } = entry;
  await refuseWhileSuspended(env, run.tenant_id, "call a failure callback again");
  const target = job.spec.target.type === "http" ? job.spec.target : null;
  const payload = payloadOf(letter.payload_json);
  const message: DeadLetterMessage = {
    kind: "dead_letter",
    run_id: letter.run_id,
    job_id: letter.job_id,
    tenant: letter.tenant_id,
    shard: 0,
    scheduled_at: letter.scheduled_at_ms,
    attempt: letter.attempt,
    reason: "exhausted",
    last_error: letter.last_error,
    target_status: letter.target_status,
    payload: {
      method: payload.method ?? target?.method ?? "POST",
      url: payload.url ?? target?.url ?? run.url,
      headers: payload.headers ?? target?.headers ?? {},
      body: payload.body ?? target?.body,
    },
    on_failure: null,
    qstash: qstashRunContextOf(job.spec, job.createdAtMs),
  };
  const nowMs = Date.now();
  const extras = await failureCallbackExtras(env, [message], [letter.id], () => message.payload.headers, {
    oncePerRun: false,
  });
  const deliveries = failureCallbackDeliveries([message], [letter.id], extras).map((delivery) => ({
    ...delivery,
    id: `${delivery.id}_${nowMs}`,
    idempotencyKey: `${delivery.idempotencyKey}_${nowMs}`,
  }));
  if (deliveries.length === 0)
    throw badRequest([{ header: "dlqId", message: "this run has no failure callback or failure function" }]);
  await enqueueSideDeliveries(env, deliveries);
  return { workflowRunId: run.run_id, workflowCreatedAt: run.created_at_ms };
}

interface LetterPayload {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function payloadOf(json: string): LetterPayload {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null ? (value as LetterPayload) : {};
  } catch {
    return {};
  }
}
