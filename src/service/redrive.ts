// A redrive: one new attempt of a dead-lettered run. Shared by POST /v1/dead-letters/{id}/redrive
// and the QStash-compatible POST /v2/dlq/retry.

import { EdgecronError } from "../core/common/errors";
import { claimRedrive, type DeadLetterRow, findDeadLetter, releaseRedrive } from "../db/dead-letters";
import { retryRun } from "../shard/client";
import { shardOfStoredJob } from "./run-history";
import { callShard, shardRefusal } from "./shard-calls";
import { refuseWhileSuspended } from "./suspension";

/**
 * Claims the dead letter (409 if already redriven), asks the run's shard for a new attempt, and
 * releases the claim if the shard refuses or cannot be reached: a letter is used up only by a
 * redrive that ran. A suspended tenant's redrive is refused (409) before the claim.
 */
export async function redriveDeadLetter(
  env: Env,
  tenantId: string,
  letter: DeadLetterRow,
): Promise<{ runId: string; attempt: number }> {
  await refuseWhileSuspended(env, tenantId, "redrive a dead letter");
  const claimedAtMs = Date.now();
  if (!(await claimRedrive(env.DB, tenantId, letter.id, claimedAtMs))) {
    throw new EdgecronError("already_redriven", `Dead letter ${letter.id} was already redriven`);
  }
  // The run lives on its job's shard (a run never moves; its id names the job).
  const shard = await shardOfStoredJob(env, tenantId, letter.job_id);
  try {
    const result = await callShard("redrive the run", () => retryRun(env, shard, letter.run_id));
    if (!result.ok) throw shardRefusal(result.code);
    return { runId: result.runId, attempt: result.attempt };
  } catch (error) {
    await releaseRedrive(env.DB, letter.id, claimedAtMs);
    throw error;
  }
}

export function deadLetterNotFound(id?: string): EdgecronError {
  return new EdgecronError(
    "dead_letter_not_found",
    id === undefined ? "No such dead letter" : `No dead letter ${id}`,
  );
}

/** deadLetters.redrive by id: the tenant's letter `deadLetterId` (404 when it has none), redriven. */
export async function redriveDeadLetterById(
  env: Env,
  tenantId: string,
  deadLetterId: string,
): Promise<{ runId: string; attempt: number }> {
  const letter = await findDeadLetter(env.DB, tenantId, deadLetterId);
  if (letter === null) throw deadLetterNotFound(deadLetterId);
  return redriveDeadLetter(env, tenantId, letter);
}
