// The QStash DLQ (/v2/dlq, /v2/workflows/dlq): a tenant's dead letters still waiting, each with
// its /v2 job (a letter of a /v1 job is not a QStash message and is left out).

import { jobStores } from "../../db/databases";
import { type DeadLetterRow, findDeadLetter, listDeadLetters } from "../../db/dead-letters";
import type { StoredJob } from "../../db/jobs";
import { deleteDeadLetters, findDeadLettersByIds, findJobsByIds } from "../../db/qstash";

export type { DeadLetterRow };

/** A dead letter in the QStash DLQ and the /v2 job it came from. */
export interface QstashDeadLetter {
  letter: DeadLetterRow;
  job: StoredJob;
}

/** The letters still waiting whose job is a /v2 one, paired with it (order kept). */
async function pairedWithJobs(
  env: Env,
  tenantId: string,
  letters: readonly DeadLetterRow[],
): Promise<QstashDeadLetter[]> {
  const waiting = letters.filter((letter) => letter.redriven_at_ms === null);
  const jobs = await findJobsByIds(
    jobStores(env),
    tenantId,
    waiting.map((letter) => letter.job_id),
  );
  return waiting.flatMap((letter) => {
    const job = jobs.get(letter.job_id);
    return job?.spec.qstash === undefined ? [] : [{ letter, job }];
  });
}

/** The named letters that are in the QStash DLQ. */
export async function qstashDeadLettersByIds(
  env: Env,
  tenantId: string,
  ids: readonly string[],
): Promise<QstashDeadLetter[]> {
  return pairedWithJobs(env, tenantId, await findDeadLettersByIds(env.DB, tenantId, ids));
}

/**
 * One page of the tenant's dead letters, newest first, from the cursor: `rows` is the page as
 * stored (for the next cursor), `letters` those of it in the QStash DLQ.
 */
export async function qstashDeadLetterPage(
  env: Env,
  tenantId: string,
  page: { cursor?: { ms: number; id: string }; limit: number },
): Promise<{ rows: DeadLetterRow[]; letters: QstashDeadLetter[] }> {
  const rows = await listDeadLetters(env.DB, tenantId, page);
  return { rows, letters: await pairedWithJobs(env, tenantId, rows) };
}

/** One letter of the QStash DLQ, or null. */
export async function readQstashDeadLetter(
  env: Env,
  tenantId: string,
  id: string,
): Promise<QstashDeadLetter | null> {
  const letter = await findDeadLetter(env.DB, tenantId, id);
  const [entry] = letter === null ? [] : await pairedWithJobs(env, tenantId, [letter]);
  return entry ?? null;
}

/** Deletes the tenant's letters named; how many there were. */
export function deleteQstashDeadLetters(env: Env, tenantId: string, ids: readonly string[]): Promise<number> {
  return deleteDeadLetters(env.DB, tenantId, ids);
}

/** The request a dead letter recorded (its method, URL, headers and body), as far as it parses. */
export interface LetterPayload {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A letter's stored payload; an unreadable one is empty rather than an error. */
export function letterPayloadOf(letter: DeadLetterRow): LetterPayload {
  try {
    const value: unknown = JSON.parse(letter.payload_json);
    return typeof value === "object" && value !== null ? (value as LetterPayload) : {};
  } catch {
    return {};
  }
}
