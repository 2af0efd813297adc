// Reading a schedule file (YAML or JSON; JSON is YAML 1.2) into its value, and pointing a field
// path such as `jobs.3.schedule.expr` (the API's field errors, the outline's) at its line and
// column, so every error a plan or an apply reports names the place in the file to fix.
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { FieldError } from "../core/common/errors";
import { fieldErrorsOf } from "../core/common/field-errors";
import { type ScheduleFile, scheduleFileOutlineSchema } from "../core/schedule-file/file-schema";

/** A place in the file: 1-based, as editors count. */
export interface FilePosition {
  line: number;
  column: number;
}

/** One problem of the file, with where it is when the path names a place the file has. */
export interface FileProblem {
  path: string;
  message: string;
  at: FilePosition | null;
}

export interface ParsedFile {
  file: ScheduleFile;
  /** The position of a dotted path (`jobs.3.name`); the nearest enclosing place the file has. */
  locate(path: string): FilePosition | null;
}

type Range = [number, number, number];

const segmentsOf = (path: string) =>
  path === "" ? [] : path.split(".").map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));

/**
 * The file's value and a locator, or every syntax problem (with line and column) and every
 * top-level field the format does not have. The jobs and calendars themselves are the API's to
 * check, as every create is.
 * @example parseScheduleFile("jobs:\n  - name: a\n  name: b\n") // { problems: [{ at: { line: 3, column: 3 }, ... }] }
 */
export function parseScheduleFile(text: string): ParsedFile | { problems: FileProblem[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const position = (offset: number): FilePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    return {
      problems: document.errors.map((error) => ({
        path: "",
        message: error.message.split("\n")[0] ?? error.message,
        at: position(error.pos[0]),
      })),
    };
  }
  // A field's place is its key (`job:` for an unknown `job`), an item's its first character.
  const placeOf = (parentPath: (string | number)[], segment: string | number): Range | undefined => {
    const parent = parentPath.length === 0 ? document.contents : document.getIn(parentPath, true);
    if (isMap(parent)) {
      const pair = parent.items.find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      return (pair?.key as { range?: Range } | undefined)?.range;
    }
    if (isSeq(parent) && typeof segment === "number")
      return (parent.items[segment] as { range?: Range } | undefined)?.range;
    return undefined;
  };
  const locate = (path: string): FilePosition | null => {
    const segments = segmentsOf(path);
    for (let length = segments.length; length > 0; length--) {
      const range = placeOf(segments.slice(0, length - 1), segments[length - 1] as string | number);
      if (range !== undefined) return position(range[0]);
    }
    const root = (document.contents as { range?: Range } | null)?.range;
    return root === undefined ? null : position(root[0]);
  };
  const value: unknown = document.contents === null ? {} : document.toJS({ maxAliasCount: 100 });
  const outline = scheduleFileOutlineSchema.safeParse(value);
  if (!outline.success) {
    const errors: FieldError[] = fieldErrorsOf(outline.error.issues, []);
    return { problems: errors.map((error) => ({ ...error, at: locate(error.path) })) };
  }
  return { file: outline.data as ScheduleFile, locate };
}

/**
 * A problem as a compiler prints it: `schedules.yaml:12:9: jobs.3.schedule.expr: <message>`.
 * @example formatProblem("s.yaml", { path: "jobs.0.name", message: "is required", at: { line: 2, column: 5 } })
 * // "s.yaml:2:5: jobs.0.name: is required"
 */
export function formatProblem(fileName: string, problem: FileProblem): string {
  const where = problem.at === null ? fileName : `${fileName}:${problem.at.line}:${problem.at.column}`;
  return problem.path === ""
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
}
