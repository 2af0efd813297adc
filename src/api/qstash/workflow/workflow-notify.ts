// POST /v2/notify: wakes each run waiting for the event with a step message carrying its data.
// A notify is done or refused, never half-done. Every wake-up is checked (the run, the target
// policy, the size) and the tenant admitted before anything is consumed; then, per waiter, one D1
// transaction takes the waiter, lists its wake-up step and unlists its timeout's step, and the
// wake-up message is stored (a failure to store puts the waiter and its timeout back). Only a
// wake-up that is stored deletes the waiter's timeout message.
import { base64OfText } from "../../../core/common/encoding";
import { logEvent } from "../../../log";
import { admitJobCreates } from "../../../service/admission";
import { saveJobVersion, syncJobs } from "../../../service/job-writes";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { findMessageJob, insertMessageJobs } from "../../../service/qstash/messages";
import {
  deleteWorkflowStep,
  findWorkflowRun,
  findWorkflowStep,
  listWorkflowWaiters,
  restoreWaiter,
  takeWaiterForWakeUp,
  takeWorkflowWaiter,
  type WorkflowWaiterRow,
} from "../../../service/qstash/workflow-store";
import { EdgecronError } from "../../http/problem";
import { badRequest } from "../errors";
import type { HeaderError } from "../headers";
import { prepareMessage } from "../messages/message-service";
import { MAX_WORKFLOW_STEP_BYTES, stepTooLarge } from "./workflow-message";

/** A wake-up ready to store: its waiter, its message's job and the step it lists. */
interface WakeUp {
  waiter: WorkflowWaiterRow;
  job: StoredJob;
  bodyBase64: string;
}

/** What notify answers for each waiter it woke. */
export interface Woken {
  waiter: WorkflowWaiterRow;
  messageId: string;
}

/** Wakes every waiter of the event (of one run when `runId` is given) still before its deadline. */
export async function notifyWaiters(
  env: Env,
  tenantId: string,
  eventId: string,
  data: string,
  runId: string | undefined,
): Promise<Woken[]> {
  const nowMs = Date.now();
  const waiting = (await listWorkflowWaiters(env, tenantId, eventId, runId)).filter(
    (waiter) => waiter.deadline_ms > nowMs,
  );
  const wakeUps = await prepareWakeUps(env, waiting, data, nowMs);
  await admitJobCreates(env, tenantId, wakeUps.length, nowMs);
  const woken: Woken[] = [];
  for (const wakeUp of wakeUps) {
    if (await storeWakeUp(env, wakeUp, nowMs))
      woken.push({ waiter: wakeUp.waiter, messageId: wakeUp.job.id });
  }
  return woken;
}

/**
 * Each waiter's wake-up, checked as a publish is; throws a 400 or 413 naming every waiter whose
 * wake-up cannot be published, before anything is consumed. The waiter of a run that has ended
 * is dropped: nothing would read its wake-up.
 */
async function prepareWakeUps(
  env: Env,
  waiters: readonly WorkflowWaiterRow[],
  data: string,
  nowMs: number,
): Promise<WakeUp[]> {
  const wakeUps: WakeUp[] = [];
  const errors: HeaderError[] = [];
  for (const waiter of waiters) {
    const run = await findWorkflowRun(env, waiter.tenant_id, waiter.run_id);
    if (run === null || run.state !== "RUN_STARTED") {
      await dropWaiter(env, waiter, nowMs);
      continue;
    }
    const step = {
      ...(JSON.parse(waiter.step) as object),
      waitEventId: waiter.event_id,
      out: base64OfText(data),
      waitTimeout: false,
    };
    const body = new TextEncoder().encode(JSON.stringify(step));
    if (body.byteLength > MAX_WORKFLOW_STEP_BYTES) {
      throw stepTooLarge(body.byteLength, "the event's data, base64 in the wake-up step,");
    }
    try {
      wakeUps.push(await prepareWakeUp(env, waiter, body, nowMs));
    } catch (error) {
      if (!(error instanceof EdgecronError) || error.errors === undefined) throw error;
      for (const field of error.errors)
        errors.push({ header: `waiter of run ${waiter.run_id}: ${field.path}`, message: field.message });
    }
  }
  if (errors.length > 0) throw badRequest(errors);
  return wakeUps;
}

async function prepareWakeUp(
  env: Env,
  waiter: WorkflowWaiterRow,
  body: Uint8Array,
  nowMs: number,
): Promise<WakeUp> {
  const headers = new Headers(JSON.parse(waiter.headers) as Record<string, string>);
  headers.set("upstash-workflow-calltype", "step");
  // One wake-up per waiter: a deduplication id among the wait's headers must not fold it away.
  headers.delete("upstash-deduplication-id");
  headers.delete("upstash-content-based-deduplication");
  const prepared = await prepareMessage({
    env,
    tenantId: waiter.tenant_id,
    destination: waiter.url,
    headers,
    body,
    nowMs,
  });
  if (prepared.kind !== "new" || prepared.workflow === undefined) {
    throw new Error(`the wake-up of run ${waiter.run_id} was not prepared as a new step message`);
  }
  return { waiter, job: prepared.job, bodyBase64: prepared.workflow.step.bodyBase64 };
}

/** Stores one wake-up; false when another notify took the waiter first. */
async function storeWakeUp(env: Env, { waiter, job, bodyBase64 }: WakeUp, nowMs: number): Promise<boolean> {
  const timeoutStep = await findWorkflowStep(env, waiter.tenant_id, waiter.run_id, waiter.timeout_message_id);
  const wakeUp = { messageId: job.id, callType: "step", bodyBase64 };
  if (!(await takeWaiterForWakeUp(env, waiter, wakeUp, nowMs))) return false;
  try {
    await insertMessageJobs(env, [job]);
  } catch (error) {
    await restoreWaiter(env, waiter, timeoutStep, job.id);
    throw error;
  }
  // Stored is done. The outbox sweep pushes what this push misses; a timeout message this fails
  // to delete (D1 failing between two statements) is logged.
  try {
    await syncJobs(env, [job]);
    await deleteTimeoutMessage(env, waiter, nowMs);
  } catch (error) {
    logEvent("qstash.notify_cleanup_failed", { run_id: waiter.run_id, message_id: job.id, error });
  }
  return true;
}

/** Drops the waiter of a run that ended, with its timeout. */
async function dropWaiter(env: Env, waiter: WorkflowWaiterRow, nowMs: number): Promise<void> {
  if (!(await takeWorkflowWaiter(env, waiter.tenant_id, waiter.event_id, waiter.run_id))) return;
  await cancelWaitTimeout(env, waiter, nowMs);
}

/** The wait's timeout unlisted from its run and its message deleted. */
export async function cancelWaitTimeout(env: Env, waiter: WorkflowWaiterRow, nowMs: number): Promise<void> {
  await deleteWorkflowStep(env, waiter.tenant_id, waiter.run_id, waiter.timeout_message_id);
  await deleteTimeoutMessage(env, waiter, nowMs);
}

async function deleteTimeoutMessage(env: Env, waiter: WorkflowWaiterRow, nowMs: number): Promise<void> {
  const job = await findMessageJob(env, waiter.tenant_id, waiter.timeout_message_id);
  if (job !== null && job.status === "ACTIVE") await saveJobVersion(env, job, { status: "DELETED" }, nowMs);
}
