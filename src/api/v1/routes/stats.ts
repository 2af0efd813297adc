import { createRoute } from "@hono/zod-openapi";
import { jobStores } from "../../../db/databases";
import { jobsByStatus } from "../../../db/job-lookups";
import { type LatenessSummary, runStats, summarizeLateness } from "../../../service/run-stats";
import { callShard } from "../../../service/shard-calls";
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
    const nowMs = Date.now();
    const [jobs, runs] = await Promise.all([
      jobsByStatus(jobStores(c.env), tenantId),
      callShard("read the run stats", () => runStats(c.env, tenantId, nowMs)),
    ]);
    return c.json({
      jobs_by_status: jobs,
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
