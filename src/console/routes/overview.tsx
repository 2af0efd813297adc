import { Hono } from "hono";
import { callApi } from "../api";
import type { ConsoleEnv } from "../env";
import { renderPage } from "../page";
import { OverviewPage } from "../pages/overview";
import type { Alert, Page, Run, Stats, TzdataStatus } from "../types";
import { jobNamesFor, latenessByCause } from "./lookups";

export const overviewRoutes = new Hono<ConsoleEnv>();

overviewRoutes.get("/", async (c) => {
  const admin = c.get("session").role === "admin";
  const [stats, failed, dead, alerts, tzdata] = await Promise.all([
    callApi<Stats>(c, "GET", "/v1/stats"),
    callApi<Page<Run>>(c, "GET", "/v1/runs?state=FAILED&limit=10"),
    callApi<Page<Run>>(c, "GET", "/v1/runs?state=DEAD_LETTERED&limit=10"),
    callApi<Page<Alert>>(c, "GET", "/v1/alerts?state=open&limit=10"),
    // Shards span every tenant: only the admin sees their tz database progress.
    admin ? callApi<TzdataStatus>(c, "GET", "/v1/tzdata", { tenant: null }) : null,
  ]);
  const failures = [...(failed.ok ? failed.data.data : []), ...(dead.ok ? dead.data.data : [])]
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
    .slice(0, 10);
  // Only open alerts: an acknowledged or resolved one has had an operator's attention.
  const openAlerts = alerts.ok ? alerts.data.data : [];
  const [lateness, jobNames] = await Promise.all([
    latenessByCause(c, Date.now()),
    jobNamesFor(c, [...failures.map((run) => run.job_id), ...openAlerts.map((alert) => alert.job_id)]),
  ]);
  return renderPage(
    c,
    { title: "Overview", active: "overview", autoRefresh: true },
    <OverviewPage
      stats={stats.ok ? stats.data : stats.problem}
      lateness={lateness}
      failures={failures}
      alerts={openAlerts}
      jobNames={jobNames}
      tzdata={tzdata?.ok ? tzdata.data : null}
    />,
  );
});
