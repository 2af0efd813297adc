// Jobs list, the new-job form (with live preview) and the edit form.
import { Hono } from "hono";
import { randomId } from "../../service/random-secrets";
import { callApi, query } from "../api";
import { BASE, type ConsoleContext, type ConsoleEnv } from "../env";
import {
  DEFAULT_VALUES,
  type FieldErrors,
  type FormValues,
  formValues,
  jobBodyFrom,
  jobPatchFrom,
  mapErrors,
  scheduleFrom,
  specFieldsFrom,
  valuesFromJob,
  windowFieldsFrom,
} from "../job-form-data";
import { noticeText } from "../notices";
import { renderPage, renderProblem } from "../page";
import { JobForm, type JobFormProps, PreviewResult } from "../pages/job-form";
import { JobsPage } from "../pages/jobs";
import type { Job, Page, Problem } from "../types";

export const jobRoutes = new Hono<ConsoleEnv>();

const jobPath = (id: string) => `${BASE}/jobs/${encodeURIComponent(id)}`;

jobRoutes.get("/jobs", async (c) => {
  const status = c.req.query("status") ?? "";
  const name = c.req.query("name") ?? "";
  const result = await callApi<Page<Job>>(
    c,
    "GET",
    `/v1/jobs${query({ status, name, cursor: c.req.query("cursor"), limit: 25 })}`,
  );
  return renderPage(
    c,
    { title: "Jobs", active: "jobs" },
    <JobsPage
      status={status}
      name={name}
      jobs={result.ok ? result.data.data : []}
      nextCursor={result.ok ? result.data.next_cursor : null}
      problem={result.ok ? undefined : result.problem}
      notice={noticeText(c.req.query("notice"), c.req.query("count"))}
      csrf={c.get("csrf")}
    />,
  );
});

type FormPageOptions = Omit<JobFormProps, "csrf" | "errors" | "otherErrors"> & {
  title: string;
  problem?: Problem | null;
  localErrors?: FieldErrors;
  status?: 200 | 400 | 409 | 422;
};

function renderForm(c: ConsoleContext, options: FormPageOptions) {
  const { fields, other } = mapErrors(options.problem ?? null, options.localErrors);
  return renderPage(
    c,
    { title: options.title, active: options.title === "New job" ? "new" : "jobs", status: options.status },
    <JobForm {...options} csrf={c.get("csrf")} errors={fields} otherErrors={other} />,
  );
}

const newJobForm = (values: FormValues) => ({
  title: "New job",
  action: `${BASE}/jobs`,
  submitLabel: "Create job",
  values,
  // A fresh key per rendered form: a double submit replays instead of creating twice.
  hidden: { idempotency_key: randomId() },
});

jobRoutes.get("/jobs/new", (c) => renderForm(c, newJobForm({ ...DEFAULT_VALUES })));

jobRoutes.post("/jobs", async (c) => {
  const form = await c.req.parseBody();
  const values = formValues(form);
  const { body, localErrors } = jobBodyFrom(values);
  const key = typeof form.idempotency_key === "string" ? form.idempotency_key : randomId();
  const result = await callApi<Job>(c, "POST", "/v1/jobs", { body, headers: { "idempotency-key": key } });
  if (result.ok) return c.redirect(`${jobPath(result.data.id)}?notice=created`, 303);
  return renderForm(c, {
    ...newJobForm(values),
    problem: result.problem,
    localErrors,
    status: result.status === 409 ? 409 : 422,
  });
});

async function previewOf(c: ConsoleContext, values: FormValues) {
  const schedule = scheduleFrom(values);
  const zone = schedule.type === "cron" ? String(schedule.timezone) : null;
  // The delivery window moves and skips instants; the flexible window's points depend on the
  // job's id, which a form has not yet: the job page lists them.
  const { window } = windowFieldsFrom(values);
  const result = await callApi<{
    fire_times: string[];
    excluded?: string[];
    skipped?: { scheduled_at: string }[];
  }>(c, "POST", "/v1/schedules/preview", {
    body: { ...specFieldsFrom(values), ...(window ? { window } : {}), count: 5 },
  });
  if (result.ok) {
    const excluded = result.data.excluded ?? [];
    const outsideWindow = (result.data.skipped ?? []).map((skip) => skip.scheduled_at);
    return { preview: { fireTimes: result.data.fire_times, excluded, outsideWindow, zone }, problem: null };
  }
  const errors = result.problem.errors?.map(
    (error) => `${error.path.replace(/^schedules?\./, "")}: ${error.message}`,
  );
  return {
    preview: { zone, errors: errors?.length ? errors : [result.problem.detail ?? result.problem.title] },
    problem: result.problem,
  };
}

// The script posts here on every schedule change (debounced) and swaps in the fragment; without
// script the "Preview schedule" button posts the whole form here and gets the page back.
jobRoutes.post("/jobs/preview", async (c) => {
  const form = await c.req.parseBody();
  const values = formValues(form);
  const { preview, problem } = await previewOf(c, values);
  if (c.req.header("x-console-fragment") === "preview") return c.html(<PreviewResult {...preview} />);
  const jobId = typeof form.job_id === "string" ? form.job_id : "";
  const base = jobId
    ? {
        title: "Edit job",
        action: `${jobPath(jobId)}/edit`,
        submitLabel: "Save changes",
        values,
        hidden: { job_id: jobId, version: String(form.version ?? "") },
      }
    : newJobForm(values);
  return renderForm(c, { ...base, preview, problem: problem ? { ...problem, detail: undefined } : null });
});

jobRoutes.get("/jobs/:id/edit", async (c) => {
  const result = await callApi<Job>(c, "GET", `/v1/jobs/${encodeURIComponent(c.req.param("id"))}`);
  if (!result.ok) return renderProblem(c, "Edit job", "jobs", result.problem);
  const job = result.data;
  return renderForm(c, {
    title: "Edit job",
    action: `${jobPath(job.id)}/edit`,
    submitLabel: "Save changes",
    values: valuesFromJob(job),
    hidden: { job_id: job.id, version: String(job.version) },
    managedBy: job.managed_by,
  });
});

jobRoutes.post("/jobs/:id/edit", async (c) => {
  const id = c.req.param("id");
  const form = await c.req.parseBody();
  const values = formValues(form);
  const current = await callApi<Job>(c, "GET", `/v1/jobs/${encodeURIComponent(id)}`);
  if (!current.ok) return renderProblem(c, "Edit job", "jobs", current.problem);
  const version =
    typeof form.version === "string" && /^\d+$/.test(form.version)
      ? form.version
      : String(current.data.version);
  const { body, localErrors } = jobPatchFrom(current.data, values);
  body.version = Number(version);
  const page = {
    title: "Edit job",
    action: `${jobPath(id)}/edit`,
    submitLabel: "Save changes",
    values,
    hidden: { job_id: id, version },
    managedBy: current.data.managed_by,
  };
  const result = await callApi<Job>(c, "PATCH", `/v1/jobs/${encodeURIComponent(id)}`, {
    body,
    headers: { "if-match": version },
  });
  if (result.ok) return c.redirect(`${jobPath(id)}?notice=updated`, 303);
  return renderForm(c, {
    ...page,
    problem: result.problem,
    localErrors,
    status: result.status === 409 ? 409 : 422,
  });
});
