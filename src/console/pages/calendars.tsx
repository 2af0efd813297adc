// The tenant's calendars: the list, and the form that creates or replaces one.

import { describeRule } from "../calendar-form-data";
import { ActionForm, ColumnHeads, Empty, Notice, ProblemBox, TableWrap } from "../components";
import { BASE } from "../env";
import { Time } from "../format";
import type { FieldErrors, FormValues } from "../job-form-data";
import type { Calendar, Problem } from "../types";
import { TextArea, TextField, TimeZoneField } from "./form-fields";

const calendarPath = (name: string) => `${BASE}/calendars/${encodeURIComponent(name)}`;

export function CalendarsPage(props: { calendars: Calendar[]; problem?: Problem; notice?: string }) {
  return (
    <>
      <Notice text={props.notice} />
      <p>
        <a class="button" href={`${BASE}/calendars/new`}>
          New calendar
        </a>
      </p>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.calendars.length === 0 && !props.problem ? (
        <Empty>
          No calendars yet. A calendar excludes dates (holidays, weekends) from the jobs that name it.
        </Empty>
      ) : null}
      {props.calendars.length > 0 ? (
        <TableWrap label="Calendars">
          <table class="calendars">
            <ColumnHeads names={["Name", "Time zone", "Rules", "Revision", "Updated (UTC)"]} />
            <tbody>
              {props.calendars.map((calendar) => (
                <tr data-calendar={calendar.name}>
                  <td>
                    <a href={calendarPath(calendar.name)}>{calendar.name}</a>
                    {calendar.description ? <div class="muted">{calendar.description}</div> : null}
                  </td>
                  <td>{calendar.timezone}</td>
                  <td class="message-text">
                    {calendar.rules.slice(0, 4).map(describeRule).join("; ")}
                    {calendar.rules.length > 4 ? ` and ${calendar.rules.length - 4} more` : ""}
                  </td>
                  <td>{calendar.revision}</td>
                  <td>
                    <Time iso={calendar.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  );
}

export interface CalendarFormProps {
  /** Null for a new calendar (its name is a field). */
  calendar: Calendar | null;
  values: FormValues;
  errors: FieldErrors;
  otherErrors: string[];
  csrf: string;
}

export function CalendarForm(props: CalendarFormProps) {
  const base = { values: props.values, errors: props.errors };
  const action = props.calendar ? calendarPath(props.calendar.name) : `${BASE}/calendars/new`;
  const jobs = props.calendar?.jobs ?? [];
  return (
    <>
      {props.otherErrors.length > 0 ? (
        <div class="problem" role="alert">
          <ul>
            {props.otherErrors.map((message) => (
              <li>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={action} class="job-form" novalidate>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <fieldset>
          <legend>Calendar</legend>
          {props.calendar ? null : (
            <TextField
              {...base}
              path="name"
              label="Name"
              required
              placeholder="uk-holidays"
              hint="Lowercase letters, digits, - and _."
            />
          )}
          <TextField {...base} path="description" label="Description (optional)" />
          <TimeZoneField
            {...base}
            path="timezone"
            label="Time zone (IANA)"
            list="calendar-zones"
            placeholder="Europe/London"
          />
          <TextArea
            {...base}
            path="rules"
            label="Excluded dates, one rule a line"
            placeholder={"2026-12-25\n2026-12-24..2026-12-31\nsat,sun"}
            hint="A date (2026-12-25), a range (2026-12-24..2026-12-31, inclusive) or weekdays (sat,sun). Dates are local dates in the time zone; # starts a comment."
          />
        </fieldset>
        <div class="actions">
          <button type="submit">{props.calendar ? "Save calendar" : "Create calendar"}</button>
          <a href={`${BASE}/calendars`}>Cancel</a>
        </div>
      </form>
      {props.calendar ? (
        <section aria-labelledby="calendar-jobs">
          <h2 id="calendar-jobs">Jobs that name it</h2>
          {jobs.length === 0 ? (
            <Empty>No job names this calendar.</Empty>
          ) : (
            <ul>
              {jobs.map((job) => (
                <li>
                  <a href={`${BASE}/jobs/${encodeURIComponent(job.id)}`}>{job.name}</a>{" "}
                  <span class="muted">{job.id}</span>
                </li>
              ))}
            </ul>
          )}
          <ActionForm
            action={`${calendarPath(props.calendar.name)}/delete`}
            csrf={props.csrf}
            label="Delete calendar"
            variant="danger"
            confirm="Delete this calendar? Refused while a job names it."
          />
        </section>
      ) : null}
    </>
  );
}
