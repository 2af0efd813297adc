// What the console reads beside the API: job names for the ids on a page. Scoped to the tenant
// the session acts as, exactly as the API scopes the list it decorates.

import { jobNamesOf } from "../../service/jobs/job-names";
import { type LatenessSummary, runStats, summarizeLateness } from "../../service/run-stats";
import type { ConsoleContext } from "../env";

/** The tenant whose data the session sees: its own, or the one the admin switched to (else null). */
export function sessionTenant(c: ConsoleContext): string | null {
  const session = c.get("session");
  return session.role === "tenant" ? session.tenantId : session.actingTenant;
}

/** Names of the jobs behind `jobIds`; empty when the session acts on no tenant. */
export async function jobNamesFor(
  c: ConsoleContext,
  jobIds: (string | null)[],
): Promise<Map<string, string>> {
  const tenantId = sessionTenant(c);
  const ids = jobIds.filter((id): id is string => typeof id === "string" && id !== "");
  if (tenantId === null || ids.length === 0) return new Map();
  return jobNamesOf(c.env, tenantId, ids);
}

/** The overview's lateness, over the same window and sample as the API's stats. */
export async function latenessByCause(c: ConsoleContext, nowMs: number): Promise<LatenessSummary> {
  return summarizeLateness((await runStats(c.env, sessionTenant(c), nowMs)).lateness);
}
