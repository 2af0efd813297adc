import { newId } from "../../../service/ids";
import { deleteQstashDeadLetters } from "../../../service/qstash/dead-letters";
import { sendFailureCallbackAgain } from "../../../service/qstash/failure-callback-retry";
import { findMessageJob } from "../../../service/qstash/messages";
import {
  endWorkflowRun,
  listWorkflowSteps,
  reopenFailedWorkflowRun,
  type WorkflowRunRow,
} from "../../../service/qstash/workflow-store";
import { redriveDeadLetter } from "../../../service/redrive";
import { refuseWhileSuspended } from "../../../service/suspension";
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
  await reopenFailedWorkflowRun(env, run.tenant_id, run.run_id, nowMs);
  try {
    await redriveDeadLetter(env, run.tenant_id, letter);
  } catch (error) {
    await endWorkflowRun(env, run.tenant_id, run.run_id, { state: "RUN_FAILED", result: null }, nowMs);
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
  const [first] = await listWorkflowSteps(env, run.tenant_id, run.run_id, 1);
  const initial = first === undefined ? null : await findMessageJob(env, run.tenant_id, first.message_id);
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
  await deleteQstashDeadLetters(env, run.tenant_id, [entry.letter.id]);
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
 * The entry's failure callback once more (src/service/qstash/failure-callback-retry.ts); a run
 * with no failure callback nor failure function has nothing to retry (400).
 */
export async function retryFailureCallback(env: Env, entry: WorkflowDlqEntry): Promise<ResumedRun> {
  const { run } = entry;
  if (!(await sendFailureCallbackAgain(env, entry))) {
    throw badRequest([{ header: "dlqId", message: "this run has no failure callback or failure function" }]);
  }
  return { workflowRunId: run.run_id, workflowCreatedAt: run.created_at_ms };
}
