// Labelled form controls that show the API's field errors inline (aria-invalid + aria-describedby).
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

export function TextField(props: FieldProps) {
  const { path, errors } = props;
  return (
    <div class="field">
      <label for={fieldId(path)}>{props.label}</label>
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
      {props.hint ? (
        <p class="hint" id={`${fieldId(path)}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError path={path} errors={errors} />
    </div>
  );
}

export function TextArea(props: FieldProps) {
  const { path, errors } = props;
  return (
    <div class="field">
      <label for={fieldId(path)}>{props.label}</label>
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
      {props.hint ? (
        <p class="hint" id={`${fieldId(path)}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError path={path} errors={errors} />
    </div>
  );
}

export function Select(props: FieldProps & { options: string[] }) {
  const { path, errors } = props;
  return (
    <div class="field">
      <label for={fieldId(path)}>{props.label}</label>
      <select id={fieldId(path)} name={path} aria-describedby={describedBy(path, errors, props.hint)}>
        {props.options.map((option) => (
          <option value={option} selected={props.values[path] === option}>
            {option}
          </option>
        ))}
      </select>
      {props.hint ? (
        <p class="hint" id={`${fieldId(path)}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError path={path} errors={errors} />
    </div>
  );
}

export function timeZones(): string[] {
  try {
    return ["UTC", ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC")];
  } catch {
    return ["UTC"];
  }
}
