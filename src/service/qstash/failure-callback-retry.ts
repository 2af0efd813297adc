// A workflow run's failure callback (or failure function) sent once more from the DLQ, with the
// answer its dead letter recorded (POST /v2/workflows/dlq/callback/{dlqId}). Each retry is a
// delivery of its own (its id names the moment), so an earlier one does not dedupe it.
import { qstashRunContextOf } from "../../core/qstash/delivery";
import { failureCallbackDeliveries } from "../../queue/qstash-callback-deliveries";
import { enqueueSideDeliveries } from "../../queue/side-delivery-queue";
import type { DeadLetterMessage } from "../../shard/protocol";
import { failureCallbackExtras } from "../failure-callbacks";
import { refuseWhileSuspended } from "../suspension";
import { letterPayloadOf, type QstashDeadLetter } from "./dead-letters";
import type { WorkflowRunRow } from "./workflow-store";

/** Sends the callback again; false when the run has neither a failure callback nor a failure function. */
export async function sendFailureCallbackAgain(
  env: Env,
  entry: QstashDeadLetter & { run: WorkflowRunRow },
): Promise<boolean> {
  const { letter, job, run } = entry;
  await refuseWhileSuspended(env, run.tenant_id, "call a failure callback again");
  const target = job.spec.target.type === "http" ? job.spec.target : null;
  const payload = letterPayloadOf(letter);
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
  if (deliveries.length === 0) return false;
  await enqueueSideDeliveries(env, deliveries);
  return true;
}
