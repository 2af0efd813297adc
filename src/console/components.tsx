import type { Child } from "hono/jsx";
import { BASE } from "./env";
import type { Problem } from "./types";

/** What every paged list page receives beside its rows and filters. */
export interface ListPageProps {
  nextCursor: string | null;
  csrf: string;
  /** The API's answer when the list could not be read. */
  problem?: Problem;
  notice?: string;
}

export function ProblemBox({ problem }: { problem: Problem }) {
  return (
    <div class="callout error" role="alert">
      <p>
        <strong>{problem.title}</strong>{" "}
        <span class="muted">
          (HTTP {problem.status}
          {problem.code ? `, ${problem.code}` : ""})
        </span>
      </p>
      {problem.detail ? <p>{problem.detail}</p> : null}
      {problem.errors?.length ? (
        <ul>
          {problem.errors.map((error) => (
            <li>
              <code>{error.path || "(body)"}</code> {error.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Notice({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <div class="callout success" role="status">
      {text}
    </div>
  );
}

/** A job a schedule file manages (`edgecron apply`): an edit here is drift the next apply undoes. */
export function ManagedBy({ label }: { label: string }) {
  return (
    <p class="callout warning" role="note">
      Managed by <strong>{label}</strong>: a change made here shows as drift in that file's next{" "}
      <code>edgecron plan</code>, and its next <code>edgecron apply</code> puts the file's values back.
    </p>
  );
}

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.toLowerCase().replaceAll("_", "-")}`}>{value}</span>;
}

/** "Next page" link carrying the cursor and the current filters. */
export function Pager({
  base,
  params,
  cursor,
}: {
  base: string;
  params: Record<string, string>;
  cursor: string | null;
}) {
  if (!cursor) return null;
  const search = new URLSearchParams({ ...params, cursor });
  return (
    <nav class="pager" aria-label="Pagination">
      <a href={`${base}?${search.toString()}`} class="button secondary">
        Next page →
      </a>
    </nav>
  );
}

/**
 * A one-button POST form. With `confirm`, the script asks first in a <dialog>; without script the
 * server answers with a confirmation page (the `confirmed` field is what it checks).
 */
export function ActionForm(props: {
  action: string;
  csrf: string;
  label: string;
  confirm?: string;
  variant?: "danger" | "secondary" | "primary";
  hidden?: Record<string, string>;
  /** Accessible name when the visible label alone is ambiguous (one button per table row). */
  ariaLabel?: string;
  children?: Child;
}) {
  return (
    <form method="post" action={props.action} class="inline-form" data-confirm={props.confirm}>
      <input type="hidden" name="_csrf" value={props.csrf} />
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.children}
      <button
        type="submit"
        class={props.variant === "primary" ? undefined : (props.variant ?? "secondary")}
        aria-label={props.ariaLabel}
      >
        {props.label}
      </button>
    </form>
  );
}

export function fieldId(path: string): string {
  return `f-${path.replaceAll(".", "-")}`;
}

export function FieldError({ path, errors }: { path: string; errors: Record<string, string[]> }) {
  const messages = errors[path];
  if (!messages?.length) return null;
  return (
    <p class="field-error" id={`${fieldId(path)}-error`}>
      {messages.join("; ")}
    </p>
  );
}

export function Empty({ children }: { children?: Child }) {
  return <p class="empty">{children}</p>;
}

/** Wraps a table so it scrolls sideways on narrow screens instead of breaking the layout. */
export function TableWrap({ label, children }: { label: string; children?: Child }) {
  return (
    <section class="table-wrap" aria-label={label} tabindex={0}>
      {children}
    </section>
  );
}

/** A table's header row: one column heading a name. */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th scope="col">{name}</th>
        ))}
      </tr>
    </thead>
  );
}

/** An id shortened to its tail (the random part of our ids), full id in the tooltip. */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-6)}` : id;
}

/** A job by name (linked) with its id under it; the id alone when the name is unknown. */
export function JobRef({ jobId, names }: { jobId: string; names: ReadonlyMap<string, string> }) {
  const name = names.get(jobId);
  const href = `${BASE}/jobs/${encodeURIComponent(jobId)}`;
  return (
    <div class="job-ref">
      <a href={href} class={name === undefined ? "mono id" : undefined} title={jobId}>
        {name ?? jobId}
      </a>
      {name === undefined ? null : (
        <div class="muted mono id" title={jobId}>
          {jobId}
        </div>
      )}
    </div>
  );
}

/** A run id linking to the run's page with its full state history. */
export function RunLink({ runId, label }: { runId: string; label?: string }) {
  return (
    <a
      href={`${BASE}/runs/${encodeURIComponent(runId)}`}
      class={label === undefined ? "mono id" : undefined}
      title={runId}
      aria-label={label === undefined ? undefined : `${label} of run ${runId}`}
    >
      {label ?? runId}
    </a>
  );
}
