// Job detail and its operations. Every operation is a POST with the CSRF token, confirmed first.
import { Hono } from "hono";
import { callApi, query } from "../api";
import { BASE, type ConsoleContext, type ConsoleEnv } from "../env";
import { noticeText } from "../notices";
import { confirmFirst, renderPage, renderProblem } from "../page";
import { JobDetailPage } from "../pages/job-detail";
import type { Job, Page, Run } from "../types";

export const jobActionRoutes = new Hono<ConsoleEnv>();

const apiJob = (id: string) => `/v1/jobs/${encodeURIComponent(id)}`;
const consoleJob = (id: string) => `${BASE}/jobs/${encodeURIComponent(id)}`;

jobActionRoutes.get("/jobs/:id", async (c) => {
  const id = c.req.param("id");
  const [job, runs] = await Promise.all([
    callApi<Job>(c, "GET", `${apiJob(id)}?next=10`),
    callApi<Page<Run>>(c, "GET", `${apiJob(id)}/runs${query({ limit: 25, cursor: c.req.query("cursor") })}`),
  ]);
  if (!job.ok) return renderProblem(c, "Job", "jobs", job.problem);
  return renderPage(
    c,
    { title: job.data.name, active: "jobs", autoRefresh: true },
    <JobDetailPage
      job={job.data}
      runs={runs.ok ? runs.data.data : []}
      nextCursor={runs.ok ? runs.data.next_cursor : null}
      csrf={c.get("csrf")}
      notice={noticeText(c.req.query("notice"), c.req.query("count"))}
    />,
  );
});

type Operation = {
  confirm: string;
  method: "POST" | "DELETE";
  apiSuffix: string;
  notice: string;
  body?: (c: ConsoleContext) => Promise<Record<string, string> | null>;
};

/** datetime-local gives "2026-11-29T07:00" or with seconds; the labels say UTC. */
function utcInstant(value: unknown): string | null {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value))
    return null;
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

const OPERATIONS: Record<string, Operation> = {
  pause: { confirm: "Pause this job?", method: "POST", apiSuffix: "/pause", notice: "paused" },
  resume: { confirm: "Resume this job?", method: "POST", apiSuffix: "/resume", notice: "resumed" },
  trigger: {
    confirm: "Run this job now, outside its schedule?",
    method: "POST",
    apiSuffix: "/trigger",
    notice: "triggered",
  },
  delete: {
    confirm: "Delete this job? This cannot be undone.",
    method: "DELETE",
    apiSuffix: "",
    notice: "deleted",
  },
  backfill: {
    confirm: "Create a run for every fire time in this range?",
    method: "POST",
    apiSuffix: "/backfill",
    notice: "backfilled",
    body: async (c) => {
      const form = await c.req.parseBody();
      const from = utcInstant(form.from);
      const to = utcInstant(form.to);
      return from && to ? { from, to } : null;
    },
  },
};

jobActionRoutes.post("/jobs/:id/:operation{pause|resume|trigger|delete|backfill}", async (c) => {
  const id = c.req.param("id");
  const name = c.req.param("operation");
  const operation = OPERATIONS[name];
  if (!operation) return c.notFound();
  const confirmation = await confirmFirst(c, operation.confirm, consoleJob(id));
  if (confirmation) return confirmation;
  let body: Record<string, string> | undefined;
  if (operation.body) {
    const built = await operation.body(c);
    if (!built) {
      return renderProblem(c, "Backfill", "jobs", {
        title: "Both instants are required",
        status: 400,
        detail: "Give a start and an end (UTC) for the backfill.",
      });
    }
    body = built;
  }
  const result = await callApi<{ created?: number }>(
    c,
    operation.method,
    `${apiJob(id)}${operation.apiSuffix}`,
    {
      body,
    },
  );
  if (!result.ok) return renderProblem(c, `Could not ${name} the job`, "jobs", result.problem);
  const count = typeof result.data?.created === "number" ? `&count=${result.data.created}` : "";
  const target = name === "delete" ? `${BASE}/jobs` : consoleJob(id);
  return c.redirect(`${target}?notice=${operation.notice}${count}`, 303);
});
