// A tenant's dead letters, newest first (by job when asked); their redrive is ./redrive.ts.
import { type DeadLetterRow, listDeadLetters } from "../db/dead-letters";

export type { DeadLetterRow };

export function listTenantDeadLetters(
  env: Env,
  tenantId: string,
  page: { jobId?: string; cursor?: { ms: number; id: string }; limit: number },
): Promise<DeadLetterRow[]> {
  return listDeadLetters(env.DB, tenantId, page);
}
