// The GET filter form of a list page (jobs, runs, alerts, dead letters, flow-control keys) and its
// fields, so every page's filters share one markup.
import type { Child } from "hono/jsx";
import { BASE } from "./env";

/** The form: its fields, then the submit button and any further actions (e.g. a "New job" link). */
export function FilterForm(props: {
  /** The list page's path under the console, e.g. "/runs". */
  path: string;
  label: string;
  submit?: string;
  actions?: Child;
  children?: Child;
}) {
  return (
    <form method="get" action={`${BASE}${props.path}`} class="filters" aria-label={props.label}>
      {props.children}
      <div class="actions">
        <button type="submit">{props.submit ?? "Filter"}</button>
        {props.actions}
      </div>
    </form>
  );
}

/** A choice among `values`; the first option, `any`, filters nothing. */
export function FilterSelect(props: {
  id: string;
  name: string;
  label: string;
  any: string;
  values: readonly string[];
  selected: string;
  optionText?: (value: string) => string;
}) {
  const optionText = props.optionText ?? ((value: string) => value);
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        <option value="">{props.any}</option>
        {props.values.map((value) => (
          <option value={value} selected={value === props.selected}>
            {optionText(value)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A free-text filter (a job id, a name prefix, a key). */
export function SearchFilter(props: { id: string; name: string; label: string; value: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input id={props.id} name={props.name} type="search" value={props.value} autocomplete="off" />
    </div>
  );
}

/** The state filter of runs and alerts. */
export function StateFilter(props: {
  values: readonly string[];
  selected: string;
  optionText?: (value: string) => string;
}) {
  return <FilterSelect id="filter-state" name="state" label="State" any="Any state" {...props} />;
}

/** The job filter of runs and dead letters (`job_id`). */
export function JobIdFilter(props: { id: string; value: string }) {
  return <SearchFilter id={props.id} name="job_id" label="Job ID" value={props.value} />;
}
