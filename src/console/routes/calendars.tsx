// Calendars: list, create, edit (PUT: the jobs that name it are re-derived) and delete.
import { Hono } from "hono";
import { callApi } from "../api";
import { calendarFieldOf, rulesFromText, rulesToText } from "../calendar-form-data";
import { BASE, type ConsoleContext, type ConsoleEnv } from "../env";
import type { FieldErrors, FormValues } from "../job-form-data";
import { noticeText } from "../notices";
import { confirmFirst, renderPage, renderProblem } from "../page";
import { CalendarForm, CalendarsPage } from "../pages/calendars";
import type { Calendar, Problem } from "../types";

export const calendarRoutes = new Hono<ConsoleEnv>();

const apiCalendar = (name: string) => `/v1/calendars/${encodeURIComponent(name)}`;
const FORM_FIELDS = ["name", "description", "timezone", "rules"] as const;

calendarRoutes.get("/calendars", async (c) => {
  const result = await callApi<{ data: Calendar[] }>(c, "GET", "/v1/calendars");
  return renderPage(
    c,
    { title: "Calendars", active: "calendars" },
    <CalendarsPage
      calendars={result.ok ? result.data.data : []}
      problem={result.ok ? undefined : result.problem}
      notice={noticeText(c.req.query("notice"), undefined)}
    />,
  );
});

function formErrors(problem: Problem | null): { fields: FieldErrors; other: string[] } {
  const fields: FieldErrors = {};
  const other: string[] = [];
  for (const error of problem?.errors ?? []) {
    const field = calendarFieldOf(error.path);
    const message =
      field === "rules" && error.path !== "rules" ? `${error.path}: ${error.message}` : error.message;
    if (field) fields[field] = [...(fields[field] ?? []), message];
    else other.push(`${error.path}: ${error.message}`);
  }
  if (problem && !problem.errors?.length) other.push(problem.detail ?? problem.title);
  return { fields, other };
}

function renderForm(
  c: ConsoleContext,
  calendar: Calendar | null,
  values: FormValues,
  problem: Problem | null,
) {
  const { fields, other } = formErrors(problem);
  return renderPage(
    c,
    {
      title: calendar ? `Calendar ${calendar.name}` : "New calendar",
      active: "calendars",
      status: problem ? (problem.status === 409 ? 409 : 400) : 200,
    },
    <CalendarForm
      calendar={calendar}
      values={values}
      errors={fields}
      otherErrors={other}
      csrf={c.get("csrf")}
    />,
  );
}

async function submittedValues(c: ConsoleContext): Promise<FormValues> {
  const form = await c.req.parseBody();
  const values: FormValues = {};
  for (const field of FORM_FIELDS) if (typeof form[field] === "string") values[field] = form[field];
  return values;
}

function bodyOf(values: FormValues) {
  return {
    description: (values.description ?? "").trim(),
    timezone: (values.timezone ?? "").trim(),
    rules: rulesFromText(values.rules ?? ""),
  };
}

calendarRoutes.get("/calendars/new", (c) => renderForm(c, null, { timezone: "UTC" }, null));

calendarRoutes.post("/calendars/new", async (c) => {
  const values = await submittedValues(c);
  const result = await callApi<Calendar>(c, "POST", "/v1/calendars", {
    body: { name: (values.name ?? "").trim(), ...bodyOf(values) },
  });
  if (!result.ok) return renderForm(c, null, values, result.problem);
  return c.redirect(`${BASE}/calendars?notice=calendar_saved`, 303);
});

calendarRoutes.get("/calendars/:name", async (c) => {
  const result = await callApi<Calendar>(c, "GET", apiCalendar(c.req.param("name")));
  if (!result.ok) return renderProblem(c, "Calendar", "calendars", result.problem);
  const calendar = result.data;
  const values = {
    description: calendar.description,
    timezone: calendar.timezone,
    rules: rulesToText(calendar.rules),
  };
  return renderForm(c, calendar, values, null);
});

calendarRoutes.post("/calendars/:name", async (c) => {
  const name = c.req.param("name");
  const values = await submittedValues(c);
  const result = await callApi<Calendar>(c, "PUT", apiCalendar(name), { body: bodyOf(values) });
  if (result.ok) return c.redirect(`${BASE}/calendars?notice=calendar_saved`, 303);
  const current = await callApi<Calendar>(c, "GET", apiCalendar(name));
  return renderForm(c, current.ok ? current.data : null, values, result.problem);
});

calendarRoutes.post("/calendars/:name/delete", async (c) => {
  const name = c.req.param("name");
  const confirmation = await confirmFirst(
    c,
    "Delete this calendar?",
    `${BASE}/calendars/${encodeURIComponent(name)}`,
  );
  if (confirmation) return confirmation;
  const result = await callApi<Calendar>(c, "DELETE", apiCalendar(name));
  if (!result.ok) return renderProblem(c, "Could not delete the calendar", "calendars", result.problem);
  return c.redirect(`${BASE}/calendars?notice=calendar_deleted`, 303);
});
