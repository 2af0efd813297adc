// The checks a file's entries need beyond a create's: what only a file may say (`paused`), what it
// may not (`managed_by`, `qstash`, a one-shot `delay`), unique names, and a page's name range.
// Each returns field errors rooted at the request (`jobs.3.name`), as the API answers them.
import type { FieldError } from "../common/errors";
import { fieldErrorsOf, joinPath } from "../common/field-errors";
import { jobCreateSchema } from "../jobs/job-spec";
import { calendarCreateSchema, type ExclusionRule } from "../schedules/exclusions";
import { nameInRange } from "./names";
import type { FileRequest } from "./request";

/** A job of the request whose file-level checks passed: what a create gets, and `paused`. */
export interface FileJobItem {
  index: number;
  name: string;
  /** The create body: the file's fields without `paused`, with the file's `managed_by`. */
  input: Record<string, unknown>;
  paused: boolean | undefined;
}

export interface CheckedItems<T> {
  items: T[];
  /** Entries refused by the file's own rules, which the create's checks must still report on. */
  refused: { index: number; input: Record<string, unknown> | unknown }[];
  errors: FieldError[];
}

const DELAY_MESSAGE =
  "a schedule file says what should exist: give `at` (a `delay` would count from each apply and move the job every time)";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Errors naming every entry that shares a name with another, each pointing at the others. */
function duplicateNameErrors(names: { index: number; name: string }[], list: "jobs" | "calendars") {
  const byName = new Map<string, number[]>();
  for (const { index, name } of names) byName.set(name, [...(byName.get(name) ?? []), index]);
  const errors: FieldError[] = [];
  for (const [name, indexes] of byName) {
    if (indexes.length < 2) continue;
    for (const index of indexes) {
      const others = indexes.filter((other) => other !== index).map((other) => `${list}.${other}`);
      errors.push({
        path: joinPath([list, index, "name"]),
        message: `${JSON.stringify(name)} is also the name of ${others.join(", ")}: names must be unique in a file`,
      });
    }
  }
  return errors;
}

function delayErrors(item: Record<string, unknown>, index: number): FieldError[] {
  const specs: [unknown, (string | number)[]][] = Array.isArray(item.schedules)
    ? item.schedules.map((spec, position) => [spec, ["schedules", position]])
    : [[item.schedule, ["schedule"]]];
  return specs.flatMap(([spec, path]) =>
    isPlainObject(spec) && spec.type === "once" && spec.delay !== undefined
      ? [{ path: joinPath(["jobs", index, ...path, "delay"]), message: DELAY_MESSAGE }]
      : [],
  );
}

/** The file's rules on one job; the create body when they pass. */
function checkJob(raw: unknown, index: number, request: FileRequest): FileJobItem | FieldError[] {
  if (!isPlainObject(raw)) return [{ path: joinPath(["jobs", index]), message: "must be an object" }];
  const { paused, managed_by: managedBy, qstash, ...fields } = raw;
  const errors = delayErrors(raw, index);
  if (managedBy !== undefined) {
    errors.push({
      path: joinPath(["jobs", index, "managed_by"]),
      message: "is the file's own: set `managed_by` at the top of the file",
    });
  }
  if (qstash !== undefined)
    errors.push({ path: joinPath(["jobs", index, "qstash"]), message: "is not a known field" });
  if (paused !== undefined && typeof paused !== "boolean") {
    errors.push({ path: joinPath(["jobs", index, "paused"]), message: "must be true or false" });
  }
  const name = jobCreateSchema.shape.name.safeParse(fields.name);
  const range = request.scope.names;
  if (name.success && range !== null && !nameInRange(name.data, range)) {
    errors.push({
      path: joinPath(["jobs", index, "name"]),
      message: "is outside the names this request speaks for (`scope.names`)",
    });
  }
  if (errors.length > 0 || !name.success) return errors;
  return {
    index,
    name: name.data,
    input: { ...fields, managed_by: request.managed_by },
    paused: paused as boolean | undefined,
  };
}

/**
 * The request's jobs that pass the file's rules, and the errors of those that do not. A refused
 * entry is still handed to the create's checks (`refused`), so one answer names every bad field.
 */
export function checkFileJobs(request: FileRequest): CheckedItems<FileJobItem> {
  const items: FileJobItem[] = [];
  const refused: CheckedItems<FileJobItem>["refused"] = [];
  const errors: FieldError[] = [];
  if (request.scope.names === null && request.jobs.length > 0) {
    errors.push({ path: "jobs", message: "must be empty when `scope.names` is null" });
  }
  request.jobs.forEach((raw, index) => {
    const checked = checkJob(raw, index, request);
    if (!Array.isArray(checked)) {
      items.push(checked);
      return;
    }
    errors.push(...checked);
    if (!isPlainObject(raw)) return;
    const { paused: _paused, managed_by: _managedBy, qstash: _qstash, ...fields } = raw;
    refused.push({ index, input: fields });
  });
  errors.push(...duplicateNameErrors(items, "jobs"));
  return { items, refused, errors };
}

export interface FileCalendarItem {
  index: number;
  name: string;
  body: { description: string; timezone: string; rules: ExclusionRule[] };
}

/** The request's calendars, each checked as `POST /v1/calendars` checks its body. */
export function checkFileCalendars(request: FileRequest): CheckedItems<FileCalendarItem> {
  const items: FileCalendarItem[] = [];
  const errors: FieldError[] = [];
  request.calendars.forEach((raw, index) => {
    const parsed = calendarCreateSchema.safeParse(raw);
    if (!parsed.success) {
      errors.push(...fieldErrorsOf(parsed.error.issues, ["calendars", index]));
      return;
    }
    const { name, ...body } = parsed.data;
    items.push({ index, name, body });
  });
  errors.push(...duplicateNameErrors(items, "calendars"));
  return { items, refused: [], errors };
}
