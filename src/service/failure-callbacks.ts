// What a failure callback (`Upstash-Failure-Callback`, an Upstash Workflow's `failureFunction`)
// carries beyond its dead letter, as QStash's does:
// - the whole answer of the call that failed (status, headers and the first 32 KiB of the body),
//   kept when the call failed: the dead letter keeps only the error's first bytes, and the
//   Workflow SDK reads `failResponse` out of the body's JSON;
// - for a step of a workflow run: the run's initial payload as `sourceBody` (the SDK builds
//   `context.requestPayload` from it), the run's URL and creation time. A run fails once: only
//   its first dead letter not redriven calls back (parallel steps failing together call once).
import type { TargetAnswer } from "../core/qstash/callback";
import { findWorkflowRun, firstOpenDeadLetterOfRun, listWorkflowSteps } from "../db/qstash-workflow-runs";
import { logEvent } from "../log";
import type { FailureCallbackExtras } from "../queue/qstash-callback-deliveries";
import type { DeadLetterMessage } from "../shard/protocol";

/** Long enough for the dead letter's callback and a retry of it from the workflow DLQ. */
const FAILED_ANSWER_TTL_SECONDS = 7 * 86_400;
const RUN_ID_HEADER = "upstash-workflow-runid";

const failedAnswerKey = (runId: string, attempt: number) => `failed-answer:${runId}:${attempt}`;

/** Keeps a failed attempt's answer for its failure callback; a failure to keep is only logged. */
export async function keepFailedAnswer(
  env: Env,
  runId: string,
  attempt: number,
  answer: TargetAnswer,
): Promise<void> {
  try {
    await env.DEDUP_KV.put(failedAnswerKey(runId, attempt), JSON.stringify(answer), {
      expirationTtl: FAILED_ANSWER_TTL_SECONDS,
    });
  } catch (error) {
    logEvent("qstash.failed_answer_keep_failed", { run_id: runId, attempt, error });
  }
}

async function keptFailedAnswer(env: Env, runId: string, attempt: number): Promise<TargetAnswer | undefined> {
  try {
    return (await env.DEDUP_KV.get<TargetAnswer>(failedAnswerKey(runId, attempt), "json")) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each letter's extras (`letters[i]` -> result i). `oncePerRun` (the dead letters as recorded)
 * leaves out the callback of a workflow run's letter that is not the one that failed the run; a
 * retry from the workflow DLQ calls back whatever the run's other letters.
 */
export async function failureCallbackExtras(
  env: Env,
  letters: readonly DeadLetterMessage[],
  letterIds: readonly string[],
  headersOf: (index: number) => Record<string, string>,
  { oncePerRun }: { oncePerRun: boolean },
): Promise<FailureCallbackExtras[]> {
  return Promise.all(
    letters.map(async (letter, index): Promise<FailureCallbackExtras> => {
      if (!letter.qstash?.delivery.failure_callback) return {};
      const answer = await keptFailedAnswer(env, letter.run_id, letter.attempt);
      const runId = headersOf(index)[RUN_ID_HEADER];
      if (runId === undefined) return { answer };
      const run = await findWorkflowRun(env.DB, letter.tenant, runId);
      if (run === null) return { answer };
      if (oncePerRun) {
        const failedBy = await firstOpenDeadLetterOfRun(env.DB, letter.tenant, runId);
        if (failedBy !== null && failedBy !== letterIds[index]) return { skip: true };
      }
      const [first] = await listWorkflowSteps(env.DB, letter.tenant, runId, 1);
      return {
        answer,
        workflow: {
          initialBodyBase64: first?.body_base64 ?? "",
          url: run.url,
          createdAtMs: run.created_at_ms,
        },
      };
    }),
  );
}
