// Records dead letters in D1 and raises their alerts (the tenant webhook and the job's on_failure
// URL). Payloads are stored bounded (./dead-letter-payload.ts) and inserted in chunks: one insert of
// a whole batch of large letters failed with SQLITE_TOOBIG, and every letter in it was retried.

import { jobStores } from "../db/databases";
import { insertDeadLetters, type NewDeadLetter } from "../db/dead-letters";
import { failureCallbackDeliveries } from "../queue/qstash-callback-deliveries";
import { enqueueSideDeliveries } from "../queue/side-delivery-queue";
import { failureCallbackExtras } from "../service/failure-callbacks";
import { raiseAlerts } from "../service/raise-alerts";
import type { DeadLetterMessage } from "../shard/protocol";
import { payloadsOf, storedPayloadJson } from "./dead-letter-payload";
import { failWorkflowRuns } from "./workflow-failures";

/** Stores the letters and raises one alert each; throws when D1 fails (the caller retries). */
export async function recordDeadLetters(env: Env, letters: readonly DeadLetterMessage[]): Promise<void> {
  const nowMs = Date.now();
  const payloads = await payloadsOf(jobStores(env), letters);
  const rows = letters.map(
    (letter, index): NewDeadLetter => ({
      id: `dlq_${letter.run_id.slice(4)}_${letter.attempt}`,
      tenant_id: letter.tenant,
      job_id: letter.job_id,
      run_id: letter.run_id,
      attempt: letter.attempt,
      scheduled_at_ms: letter.scheduled_at,
      reason: letter.reason,
      last_error: letter.last_error,
      target_status: letter.target_status,
      payload_json: storedPayloadJson(payloads[index] ?? letter.payload),
    }),
  );
  await insertDeadLetters(env.DB, rows, nowMs);
  await failWorkflowRuns(env.DB, letters, payloads, nowMs);
  // Before the alerts: a failed enqueue throws and the batch is retried, so a callback may go
  // twice (same Idempotency-Key and message id), never not at all.
  const letterIds = rows.map((row) => row.id);
  const extras = await failureCallbackExtras(
    env,
    letters,
    letterIds,
    (index) => (payloads[index] ?? letters[index]?.payload)?.headers ?? {},
    { oncePerRun: true },
  );
  const failureCallbacks = failureCallbackDeliveries(letters, letterIds, extras);
  if (failureCallbacks.length > 0) await enqueueSideDeliveries(env, failureCallbacks);
  await raiseAlerts(
    env,
    letters.map((letter) => ({
      tenantId: letter.tenant,
      jobId: letter.job_id,
      runId: letter.run_id,
      kind: "dead_lettered" as const,
      dedupKey: `dead:${letter.run_id}:${letter.attempt}`,
      extraUrl: letter.on_failure ?? null,
      message: `Run ${letter.run_id} of job ${letter.job_id} was dead-lettered (${letter.reason})`,
      details: {
        attempt: letter.attempt,
        reason: letter.reason,
        last_error: letter.last_error,
        target_status: letter.target_status,
        scheduled_at: new Date(letter.scheduled_at).toISOString(),
      },
    })),
  );
}
