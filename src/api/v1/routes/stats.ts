import { createRoute } from "@hono/zod-openapi";
import { type LatenessSummary, summarizeLateness } from "../../../service/run-stats";
import { readStats } from "../../../service/stats";
import { tenantScope } from "../../http/auth";
import { statsSchema } from "../openapi/components";
import { apiRouter, defineRoute, json, problems, TENANT_ERRORS, tenantHeaders } from "../openapi/define";

export const stats = apiRouter();

/**
 * Job counts come from D1, run counts and lateness from the shards' history aggregates. A tenant sees its own; the admin sees one tenant with
 * `Edgecron-Tenant`, or every tenant together without it.
 */
stats.use("*", async (c, next) => {
  if (c.get("caller").role === "admin" && !c.req.header("edgecron-tenant")?.trim()) return next();
  return tenantScope(c, next);
});

defineRoute(
  stats,
  createRoute({
    method: "get",
    path: "/",
    operationId: "getStats",
    summary:
      "Counts, per-minute triggers and failures, lateness (admin without Edgecron-Tenant: every tenant)",
    tags: ["stats"],
    request: { headers: tenantHeaders },
    responses: { 200: json(statsSchema, "The stats"), ...problems(...TENANT_ERRORS, "shard_unavailable") },
  }),
  async (c) => {
    const tenantId = c.get("tenantId") ?? null;
    const { jobsByStatus, runs } = await readStats(c.env, tenantId, Date.now());
    return c.json({
      jobs_by_status: jobsByStatus,
      runs_by_state: runs.runsByState,
      per_minute: runs.perMinute,
      ...latenessFields(summarizeLateness(runs.lateness)),
      share_wait: {
        throttled: runs.shareWait.waitingRuns > 0,
        waiting_runs: runs.shareWait.waitingRuns,
        waiting_since:
          runs.shareWait.oldestDueMs === null ? null : new Date(runs.shareWait.oldestDueMs).toISOString(),
        shards: runs.shareWait.shards,
      },
    });
  },
);

/** The stats' lateness: whole (as before), the scheduler's own part, and what the jobs asked for. */
function latenessFields(summary: LatenessSummary) {
  return {
    lateness_ms: summary.whole,
    scheduler_lateness_ms: summary.scheduler,
    policy_wait_ms: { ...summary.policy, by_cause: summary.byPolicy },
  };
}
