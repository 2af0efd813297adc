// A run's own page: GET /v1/runs/{id} (the run with its whole D1 event history) plus the job's name.
import { Hono } from "hono";
import { TERMINAL_STATES } from "../../core/run-state";
import { callApi } from "../api";
import type { ConsoleEnv } from "../env";
import { renderPage, renderProblem } from "../page";
import { RunDetailPage } from "../pages/run-detail";
import type { Run } from "../types";
import { jobNamesFor } from "./lookups";

/** A finished run's page need not refresh itself. */
const TERMINAL = new Set<string>(TERMINAL_STATES);

export const runDetailRoutes = new Hono<ConsoleEnv>();

runDetailRoutes.get("/runs/:id", async (c) => {
  const id = c.req.param("id");
  const result = await callApi<Run>(c, "GET", `/v1/runs/${encodeURIComponent(id)}`);
  if (!result.ok) return renderProblem(c, "Could not load the run", "runs", result.problem);
  const run = result.data;
  const jobNames = await jobNamesFor(c, [run.job_id]);
  return renderPage(
    c,
    { title: `Run ${run.id}`, active: "runs", autoRefresh: !TERMINAL.has(run.state) },
    <RunDetailPage run={run} jobNames={jobNames} csrf={c.get("csrf")} />,
  );
});
