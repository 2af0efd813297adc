// Labelled form controls that show the API's field errors inline (aria-invalid + aria-describedby).
import type { Child } from "hono/jsx";
import { FieldError, fieldId } from "../components";
import type { FieldErrors, FormValues } from "../job-form-data";

export interface FieldProps {
  path: string;
  label: string;
  values: FormValues;
  errors: FieldErrors;
  hint?: string;
  type?: string;
  placeholder?: string;
  list?: string;
  required?: boolean;
}

function describedBy(path: string, errors: FieldErrors, hint?: string): string | undefined {
  const ids = [hint ? `${fieldId(path)}-hint` : "", errors[path]?.length ? `${fieldId(path)}-error` : ""];
  return ids.filter(Boolean).join(" ") || undefined;
}

/** What every field shows around its control: the label, then the hint and the field's errors. */
function FieldFrame(props: FieldProps & { children?: Child }) {
  const { path, errors } = props;
  return (
    <div class="field">
      <label for={fieldId(path)}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <p class="hint" id={`${fieldId(path)}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError path={path} errors={errors} />
    </div>
  );
}

export function TextField(props: FieldProps) {
  const { path, errors } = props;
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(path)}
        name={path}
        type={props.type ?? "text"}
        value={props.values[path] ?? ""}
        placeholder={props.placeholder}
        list={props.list}
        required={props.required}
        autocomplete="off"
        aria-invalid={errors[path]?.length ? "true" : undefined}
        aria-describedby={describedBy(path, errors, props.hint)}
      />
    </FieldFrame>
  );
}

export function TextArea(props: FieldProps) {
  const { path, errors } = props;
  return (
    <FieldFrame {...props}>
      <textarea
        id={fieldId(path)}
        name={path}
        rows={3}
        placeholder={props.placeholder}
        aria-invalid={errors[path]?.length ? "true" : undefined}
        aria-describedby={describedBy(path, errors, props.hint)}
      >
        {props.values[path] ?? ""}
      </textarea>
    </FieldFrame>
  );
}

export function Select(props: FieldProps & { options: string[] }) {
  const { path, errors } = props;
  return (
    <FieldFrame {...props}>
      <select id={fieldId(path)} name={path} aria-describedby={describedBy(path, errors, props.hint)}>
        {props.options.map((option) => (
          <option value={option} selected={props.values[path] === option}>
            {option}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** A time zone field offering every IANA zone this runtime knows (a datalist named by `list`). */
export function TimeZoneField(props: FieldProps & { list: string }) {
  return (
    <>
      <TextField {...props} />
      <datalist id={props.list}>
        {timeZones().map((zone) => (
          <option value={zone} />
        ))}
      </datalist>
    </>
  );
}

function timeZones(): string[] {
  try {
    return ["UTC", ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC")];
  } catch {
    return ["UTC"];
  }
}
