import { FieldError, fieldId, ManagedBy } from "../components";
import { BASE } from "../env";
import { formatInZone, formatUtc } from "../format";
import type { FieldErrors, FormValues } from "../job-form-data";
import { Select, TextArea, TextField, TimeZoneField } from "./form-fields";

export function PreviewResult(props: {
  fireTimes?: string[];
  excluded?: string[];
  outsideWindow?: string[];
  zone: string | null;
  errors?: string[];
}) {
  if (props.errors?.length) {
    return (
      <div class="preview-errors">
        <p>
          <strong>This schedule cannot be previewed:</strong>
        </p>
        <ul>
          {props.errors.map((message) => (
            <li>{message}</li>
          ))}
        </ul>
      </div>
    );
  }
  if (!props.fireTimes) return <p class="muted">Fill in the schedule to see its next fire times.</p>;
  if (props.fireTimes.length === 0) return <p>This schedule will not fire again.</p>;
  const excluded = props.excluded ?? [];
  return (
    <>
      <ol class="fire-times">
        {props.fireTimes.map((iso) => (
          <li>
            <time datetime={iso}>
              {props.zone && props.zone !== "UTC" ? formatInZone(iso, props.zone) : formatUtc(iso)}
            </time>
            {props.zone && props.zone !== "UTC" ? <span class="muted"> · {formatUtc(iso)}</span> : null}
          </li>
        ))}
      </ol>
      {excluded.length > 0 ? (
        <p class="muted">
          Excluded by calendars (recorded as skipped):{" "}
          {excluded
            .slice(0, 5)
            .map((iso) => formatUtc(iso))
            .join(", ")}
          {excluded.length > 5 ? ` and ${excluded.length - 5} more` : ""}
        </p>
      ) : null}
      {(props.outsideWindow ?? []).length > 0 ? (
        <p class="muted">
          Outside the delivery window (recorded as skipped):{" "}
          {(props.outsideWindow ?? [])
            .slice(0, 5)
            .map((iso) => formatUtc(iso))
            .join(", ")}
          {(props.outsideWindow ?? []).length > 5
            ? ` and ${(props.outsideWindow ?? []).length - 5} more`
            : ""}
        </p>
      ) : null}
    </>
  );
}

export interface JobFormProps {
  action: string;
  csrf: string;
  values: FormValues;
  errors: FieldErrors;
  otherErrors: string[];
  submitLabel: string;
  preview?: { fireTimes?: string[]; zone: string | null; errors?: string[] };
  hidden?: Record<string, string>;
  /** The schedule file that manages the job being edited (warned of before the edit). */
  managedBy?: string | null;
}

export function JobForm(props: JobFormProps) {
  const { values, errors } = props;
  const base = { values, errors };
  const type = values["schedule.type"] || "cron";
  const errorCount =
    Object.values(errors).reduce((sum, list) => sum + list.length, 0) + props.otherErrors.length;
  return (
    <form
      method="post"
      action={props.action}
      class="job-form"
      data-preview-url={`${BASE}/jobs/preview`}
      novalidate
    >
      <input type="hidden" name="_csrf" value={props.csrf} />
      {props.managedBy ? <ManagedBy label={props.managedBy} /> : null}
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {errorCount > 0 ? (
        <div class="callout error" role="alert" id="form-errors" tabindex={-1}>
          <p>
            <strong>
              The API rejected this job ({errorCount} {errorCount === 1 ? "problem" : "problems"}):
            </strong>
          </p>
          <ul>
            {Object.entries(errors).flatMap(([path, messages]) =>
              messages.map((message) => (
                <li>
                  <a href={`#${fieldId(path)}`}>
                    <code>{path}</code> {message}
                  </a>
                </li>
              )),
            )}
            {props.otherErrors.map((message) => (
              <li>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <fieldset>
        <legend>Job</legend>
        <TextField {...base} path="name" label="Name" required hint="Shown in lists; filter by its prefix." />
      </fieldset>
      <fieldset class="schedule">
        <legend>Schedule</legend>
        <div class="field">
          <span class="label" id="schedule-type-label">
            Kind
          </span>
          <div
            class="radios"
            role="radiogroup"
            aria-labelledby="schedule-type-label"
            id={fieldId("schedule.type")}
          >
            {(["cron", "interval", "once"] as const).map((kind) => (
              <label>
                <input type="radio" name="schedule.type" value={kind} checked={type === kind} /> {kind}
              </label>
            ))}
          </div>
          <FieldError path="schedule.type" errors={errors} />
        </div>
        <div class="kind-fields" data-kind="cron">
          <TextField
            {...base}
            path="schedule.expr"
            label="Cron expression"
            placeholder="*/5 * * * *"
            hint="5 fields, or 6 with seconds first; @daily-style nicknames."
          />
          <TimeZoneField
            {...base}
            path="schedule.timezone"
            label="Time zone (IANA)"
            list="time-zones"
            placeholder="Europe/Berlin"
          />
        </div>
        <div class="kind-fields" data-kind="interval">
          <TextField
            {...base}
            path="schedule.every"
            label="Every"
            placeholder="15m"
            hint="Duration such as 30s, 15m, 2h, 1d (at least 1s)."
          />
        </div>
        <div class="kind-fields" data-kind="once">
          <TextField
            {...base}
            path="schedule.at"
            label="At (RFC 3339, UTC)"
            placeholder="2026-12-01T00:00:00Z"
          />
          <TextField {...base} path="schedule.delay" label="Or after a delay" placeholder="2h" />
        </div>
        <TextArea
          {...base}
          path="schedules.more"
          label="Further cron specs (one a line, optional)"
          placeholder="0 17 * * MON-FRI"
          hint="One a line, in the same time zone: the job fires at the union of all its specs, an instant they share once."
        />
        <TextField
          {...base}
          path="calendars"
          label="Calendars (optional)"
          placeholder="uk-holidays, office-closed"
          hint="Names of this tenant's calendars, comma separated: instants on their dates are skipped."
        />
        <section class="preview" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Next fire times</h2>
          <div id="schedule-preview" aria-live="polite">
            <PreviewResult {...(props.preview ?? { zone: null })} />
          </div>
          <button
            type="submit"
            class="secondary small"
            formaction={`${BASE}/jobs/preview`}
            data-preview-button=""
          >
            Preview schedule
          </button>
        </section>
      </fieldset>
      <fieldset>
        <legend>Target</legend>
        <Select
          {...base}
          path="target.type"
          label="Target kind"
          options={["http", "service", "workflow", "queue"]}
          hint="HTTP calls a URL; the others use a binding of this deployment (a Worker, a Workflow or a Queue) listed in TARGET_BINDINGS."
        />
        <div class="target-fields" data-target-kinds="http">
          <TextField
            {...base}
            path="target.url"
            label="URL"
            type="url"
            placeholder="https://example.com/hook"
          />
        </div>
        <div class="target-fields" data-target-kinds="service workflow queue">
          <TextField {...base} path="target.binding" label="Binding" placeholder="BILLING" />
        </div>
        <div class="target-fields" data-target-kinds="service">
          <TextField {...base} path="target.path" label="Path on the Worker" placeholder="/hook" />
        </div>
        <div class="target-fields" data-target-kinds="http service">
          <Select
            {...base}
            path="target.method"
            label="Method"
            options={["POST", "GET", "PUT", "PATCH", "DELETE"]}
          />
          <TextArea
            {...base}
            path="target.headers"
            label="Headers (JSON object)"
            placeholder='{"x-tenant": "acme"}'
          />
        </div>
        <TextArea {...base} path="target.body" label="Body (JSON or text)" placeholder='{"sub": 42}' />
      </fieldset>
      <fieldset>
        <legend>Delivery</legend>
        <div class="row">
          <TextField {...base} path="retry.max_attempts" label="Max attempts" type="number" />
          <TextField {...base} path="retry.backoff.initial" label="First retry after" placeholder="30s" />
          <TextField {...base} path="timeout" label="Timeout" placeholder="30s" />
        </div>
        <div class="row">
          <Select
            {...base}
            path="overlap"
            label="If still running"
            options={["allow", "skip", "buffer_one", "buffer_all"]}
          />
          <Select
            {...base}
            path="misfire.policy"
            label="If a fire time was missed"
            options={["fire_now", "skip", "catch_up"]}
          />
        </div>
        <div class="row">
          <Select {...base} path="completion" label="Run ends with" options={["response", "callback"]} />
          <TextField {...base} path="heartbeat_timeout" label="Heartbeat timeout" placeholder="5m" />
        </div>
        <div class="row">
          <TextField
            {...base}
            path="window.between"
            label="Delivery window (optional)"
            placeholder="08:00-20:00"
            hint="Local times the job may be called at; empty: any time."
          />
          <TextField {...base} path="window.days" label="Window days" placeholder="MON-FRI, SAT" />
          <TextField
            {...base}
            path="window.timezone"
            label="Window time zone"
            placeholder="the schedule's zone"
          />
          <Select {...base} path="window.outside" label="Outside the window" options={["defer", "skip"]} />
        </div>
        <TextField
          {...base}
          path="flexible_window.max"
          label="Flexible window (optional)"
          placeholder="15m"
          hint="Each instant fires at a point up to this long after it, the same point on every restart: spreads a burst."
        />
        <div class="row">
          <TextField
            {...base}
            path="debounce.period"
            label="Debounce triggers (optional)"
            placeholder="30s"
            hint="Triggers of one key within this period become one run; empty: every trigger runs."
          />
          <Select {...base} path="debounce.mode" label="Debounce mode" options={["trailing", "leading"]} />
          <TextField {...base} path="debounce.key" label="Debounce key" placeholder="default" />
          <TextField {...base} path="debounce.max_wait" label="Longest wait (trailing)" placeholder="5m" />
        </div>
        <p class="muted">
          A long-running target answers 202 with Edgecron-Async: true (or, with callback, any 2xx) and reports
          back with the run token it received; it must heartbeat or complete within the heartbeat timeout.
        </p>
      </fieldset>
      <div class="actions">
        <button type="submit">{props.submitLabel}</button>
        <a class="button secondary" href={`${BASE}/jobs`}>
          Cancel
        </a>
      </div>
    </form>
  );
}
