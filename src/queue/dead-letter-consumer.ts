// The dead-letter queue's consumer records what reaches it: runs the shard dead-lettered, and
// dispatch messages the queue gave up on (the consumer kept crashing), which it hands back to
// their shard to dead-letter authoritatively.
import { raiseAlerts } from "../alerts";
import { insertDeadLetters, type NewDeadLetter } from "../db/dead-letters";
import { deadLetterPoison } from "../shard/client";
import {
  type DeadLetterMessage,
  type DispatchMessage,
  runsOfMessage,
  type SingleRunDispatchMessage,
} from "../shard/protocol";

export async function handleDeadLetterBatch(
  batch: MessageBatch<DeadLetterMessage | DispatchMessage | SingleRunDispatchMessage>,
  env: Env,
): Promise<void> {
  const deadLetters: DeadLetterMessage[] = [];
  for (const message of batch.messages) {
    const body = message.body;
    if ("kind" in body && body.kind === "dead_letter") {
      deadLetters.push(body);
      continue;
    }
    const poison = runsOfMessage(body as DispatchMessage | SingleRunDispatchMessage);
    try {
      for (const run of poison.runs) {
        await deadLetterPoison(
          env,
          poison.shard,
          { runId: run.run_id, fence: run.fence },
          `poison: the dispatch consumer failed on this message ${message.attempts} time(s)`,
        );
      }
      message.ack();
    } catch {
      message.retry({ delaySeconds: 5 });
    }
  }
  if (deadLetters.length === 0) return;
  await recordDeadLetters(env, deadLetters);
  for (const message of batch.messages) {
    if ("kind" in message.body && message.body.kind === "dead_letter") message.ack();
  }
}

async function recordDeadLetters(env: Env, deadLetters: DeadLetterMessage[]): Promise<void> {
  const nowMs = Date.now();
  const rows = deadLetters.map(
    (letter): NewDeadLetter => ({
      id: `dlq_${letter.run_id.slice(4)}_${letter.attempt}`,
      tenant_id: letter.tenant,
      job_id: letter.job_id,
      run_id: letter.run_id,
      attempt: letter.attempt,
      scheduled_at_ms: letter.scheduled_at,
      reason: letter.reason,
      last_error: letter.last_error,
      target_status: letter.target_status,
      payload_json: JSON.stringify(letter.payload),
    }),
  );
  await insertDeadLetters(env.DB, rows, nowMs);
  await raiseAlerts(
    env,
    deadLetters.map((letter) => ({
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
