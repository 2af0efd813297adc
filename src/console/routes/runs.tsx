// Runs and dead letters: lists with filters, manual retry and redrive.
import { Hono } from "hono";
import { TERMINAL_STATES } from "../../core/runs/run-state";
import { callApi, query } from "../api";
import { BASE, type ConsoleContext, type ConsoleEnv } from "../env";
import { noticeText } from "../notices";
import { confirmFirst, pageStatusOf, renderPage, renderProblem } from "../page";
import { DeadLettersPage } from "../pages/dead-letters";
import { type RedriveOutcome, RedriveReport } from "../pages/redrive-report";
import { RunDetailPage } from "../pages/run-detail";
import { RunsPage } from "../pages/runs";
import type { DeadLetter, Page, Run } from "../types";
import { jobNamesFor } from "./lookups";

export const runRoutes = new Hono<ConsoleEnv>();

/** A finished run's page need not refresh itself. */
const TERMINAL = new Set<string>(TERMINAL_STATES);

/** A run's own page: GET /v1/runs/{id} (the run with its whole D1 event history) and its job's name. */
runRoutes.get("/runs/:id", async (c) => {
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

runRoutes.get("/runs", async (c) => {
  const state = c.req.query("state") ?? "";
  const jobId = c.req.query("job_id") ?? "";
  const result = await callApi<Page<Run>>(
    c,
    "GET",
    `/v1/runs${query({ state, job_id: jobId, cursor: c.req.query("cursor"), limit: 50 })}`,
  );
  const runs = result.ok ? result.data.data : [];
  const jobNames = await jobNamesFor(
    c,
    runs.map((run) => run.job_id),
  );
  return renderPage(
    c,
    { title: "Runs", active: "runs", autoRefresh: true },
    <RunsPage
      state={state}
      jobId={jobId}
      runs={runs}
      jobNames={jobNames}
      nextCursor={result.ok ? result.data.next_cursor : null}
      csrf={c.get("csrf")}
      problem={result.ok ? undefined : result.problem}
      notice={noticeText(c.req.query("notice"), c.req.query("count"))}
    />,
  );
});

runRoutes.post("/runs/:id/retry", async (c) => {
  const id = c.req.param("id");
  const confirmation = await confirmFirst(c, `Retry run ${id} now?`, `${BASE}/runs`);
  if (confirmation) return confirmation;
  const result = await callApi<{ run_id: string }>(c, "POST", `/v1/runs/${encodeURIComponent(id)}/retry`);
  if (!result.ok) return renderProblem(c, "Could not retry the run", "runs", result.problem);
  return c.redirect(`${BASE}/runs?notice=retried`, 303);
});

runRoutes.get("/dead-letters", async (c) => {
  const jobId = c.req.query("job_id") ?? "";
  const result = await callApi<Page<DeadLetter>>(
    c,
    "GET",
    `/v1/dead-letters${query({ job_id: jobId, cursor: c.req.query("cursor"), limit: 50 })}`,
  );
  const letters = result.ok ? result.data.data : [];
  const jobNames = await jobNamesFor(
    c,
    letters.map((letter) => letter.job_id),
  );
  return renderPage(
    c,
    { title: "Dead letters", active: "dead-letters", autoRefresh: true },
    <DeadLettersPage
      letters={letters}
      jobNames={jobNames}
      nextCursor={result.ok ? result.data.next_cursor : null}
      jobId={jobId}
      csrf={c.get("csrf")}
      problem={result.ok ? undefined : result.problem}
      notice={noticeText(c.req.query("notice"), c.req.query("count"))}
    />,
  );
});

runRoutes.post("/dead-letters/redrive", async (c) => {
  const form = await c.req.parseBody({ all: true });
  const one = typeof form.one === "string" ? form.one : null;
  const selected = ([] as unknown[])
    .concat(form.id ?? [])
    .filter((id): id is string => typeof id === "string");
  const ids = one ? [one] : selected;
  if (ids.length === 0) {
    return renderProblem(c, "Nothing to redrive", "dead-letters", {
      title: "No dead letter selected",
      status: 400,
      detail: "Tick at least one dead letter, or use a row's Redrive button.",
    });
  }
  const confirmation = await confirmFirst(c, `Redrive ${ids.length} dead letter(s)?`, `${BASE}/dead-letters`);
  if (confirmation) return confirmation;
  const outcomes = await Promise.all(ids.map((id) => redriveOne(c, id)));
  if (outcomes.every((outcome) => outcome.ok)) {
    return c.redirect(`${BASE}/dead-letters?notice=redriven&count=${ids.length}`, 303);
  }
  const done = outcomes.filter((outcome) => outcome.ok).length;
  // All refused: the first refusal's status (one dead letter refused answers like the API did).
  const firstRefusal = outcomes.find((outcome) => !outcome.ok);
  const status = done === 0 && firstRefusal && !firstRefusal.ok ? pageStatusOf(firstRefusal.problem) : 200;
  return renderPage(
    c,
    { title: `Redrove ${done} of ${ids.length}`, active: "dead-letters", status },
    <RedriveReport outcomes={outcomes} />,
  );
});

async function redriveOne(c: ConsoleContext, id: string): Promise<RedriveOutcome> {
  const result = await callApi<{ run_id: string; attempt: number }>(
    c,
    "POST",
    `/v1/dead-letters/${encodeURIComponent(id)}/redrive`,
  );
  return result.ok
    ? { id, ok: true, runId: result.data.run_id, attempt: result.data.attempt }
    : { id, ok: false, problem: result.problem };
}
