// Alerts: the list with its state and kind filters, and the Acknowledge and Resolve buttons.
import { Hono } from "hono";
import { callApi, query } from "../api";
import { BASE, type ConsoleEnv } from "../env";
import { noticeText } from "../notices";
import { renderPage, renderProblem } from "../page";
import { type AlertFilters, AlertsPage } from "../pages/alerts";
import type { Alert, Page } from "../types";
import { jobNamesFor } from "./lookups";

export const alertRoutes = new Hono<ConsoleEnv>();

function filtersOf(values: Record<string, unknown>): AlertFilters {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return { kind: text(values.kind), state: text(values.state) };
}

alertRoutes.get("/alerts", async (c) => {
  const filters = filtersOf(c.req.query());
  const result = await callApi<Page<Alert>>(
    c,
    "GET",
    `/v1/alerts${query({ ...filters, cursor: c.req.query("cursor"), limit: 50 })}`,
  );
  const alerts = result.ok ? result.data.data : [];
  const jobNames = await jobNamesFor(
    c,
    alerts.map((alert) => alert.job_id),
  );
  return renderPage(
    c,
    { title: "Alerts", active: "alerts", autoRefresh: true },
    <AlertsPage
      filters={filters}
      alerts={alerts}
      jobNames={jobNames}
      nextCursor={result.ok ? result.data.next_cursor : null}
      csrf={c.get("csrf")}
      problem={result.ok ? undefined : result.problem}
      notice={noticeText(c.req.query("notice"), undefined)}
    />,
  );
});

/** Acknowledge or resolve; back to the list with the filters it was posted from. */
for (const [verb, notice] of [
  ["ack", "acknowledged"],
  ["resolve", "resolved"],
] as const) {
  alertRoutes.post(`/alerts/:id/${verb}`, async (c) => {
    const id = c.req.param("id");
    const result = await callApi<Alert>(c, "POST", `/v1/alerts/${encodeURIComponent(id)}/${verb}`);
    if (!result.ok)
      return renderProblem(
        c,
        `Could not ${verb === "ack" ? "acknowledge" : "resolve"} the alert`,
        "alerts",
        result.problem,
      );
    const filters = filtersOf(await c.req.parseBody());
    return c.redirect(`${BASE}/alerts${query({ ...filters, notice })}`, 303);
  });
}
