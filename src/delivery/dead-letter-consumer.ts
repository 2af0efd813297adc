// The dead-letter queue's consumer records what reaches it: runs the shard dead-lettered, and
// dispatch messages the queue gave up on (the consumer kept crashing), which it hands back to
// their shard to dead-letter authoritatively.

import { logEvent } from "../log";
import { deadLetterPoison } from "../shard/client";
import {
  type DeadLetterMessage,
  type DispatchMessage,
  runsOfMessage,
  type SingleRunDispatchMessage,
} from "../shard/protocol";
import { recordDeadLetters } from "./dead-letter-record";

export async function handleDeadLetterBatch(
  batch: MessageBatch<DeadLetterMessage | DispatchMessage | SingleRunDispatchMessage>,
  env: Env,
): Promise<void> {
  const deadLetters: Message<DeadLetterMessage>[] = [];
  for (const message of batch.messages) {
    const body = message.body;
    if ("kind" in body && body.kind === "dead_letter") {
      deadLetters.push(message as Message<DeadLetterMessage>);
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
  try {
    await recordDeadLetters(
      env,
      deadLetters.map((message) => message.body),
    );
    for (const message of deadLetters) message.ack();
  } catch (error) {
    // Inserts are idempotent (ids per run and attempt) and alerts deduplicated: a retry is safe.
    logEvent("dead_letter.record_failed", { letters: deadLetters.length, error });
    for (const message of deadLetters) message.retry({ delaySeconds: 5 });
  }
}
