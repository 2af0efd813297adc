// A dead-lettered step message of an Upstash Workflow run fails its run: the run's logs then say
// RUN_FAILED, and its steps are no longer served to a late delivery. The run is named by the
// `Upstash-Workflow-RunId` its deliveries carry (a `context.call` to a third party carries none,
// and failing there reaches the run through its callback instead).
import { endWorkflowRun } from "../db/qstash-workflow-runs";
import type { DeadLetterMessage } from "../shard/protocol";

const RUN_ID_HEADER = "upstash-workflow-runid";

/** `payloads[i]` is letter i's full payload (a large one is read back from its job). */
export async function failWorkflowRuns(
  db: D1Database,
  letters: readonly DeadLetterMessage[],
  payloads: readonly (DeadLetterMessage["payload"] | undefined)[],
  nowMs: number,
): Promise<void> {
  for (const [index, letter] of letters.entries()) {
    const headers = (payloads[index] ?? letter.payload).headers;
    const runId = letter.qstash === undefined ? undefined : headers[RUN_ID_HEADER];
    if (runId === undefined) continue;
    await endWorkflowRun(db, letter.tenant, runId, { state: "RUN_FAILED", result: null }, nowMs);
  }
}
