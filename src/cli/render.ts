// Human output: aligned tables, key/value views and problem reports. `--json` bypasses all of it.
import type { Problem } from "../client/index";

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Longest cell before it is cut with "…" (default 48). */
  maxWidth?: number;
}

/**
 * Renders rows as a left-aligned table with a header line; "(none)" style text when empty.
 * @example renderTable([{ header: "ID", value: (j) => j.id }], jobs, "no jobs")
 */
export function renderTable<T>(columns: Column<T>[], rows: T[], emptyText = "(none)"): string {
  if (rows.length === 0) return `${emptyText}\n`;
  const cells = rows.map((row) =>
    columns.map((column) => cellText(column.value(row), column.maxWidth ?? 48)),
  );
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => line[i]?.length ?? 0)),
  );
  const format = (line: string[]) =>
    line
      .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[format(columns.map((column) => column.header)), ...cells.map(format)].join("\n")}\n`;
}

/** `label  value` lines with aligned values; array values continue on following lines. */
export function renderKeyValues(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  const lines: string[] = [];
  for (const [label, value] of pairs) {
    const values = Array.isArray(value) ? (value.length > 0 ? value : ["-"]) : [value];
    values.forEach((item, i) => {
      lines.push(`${(i === 0 ? label : "").padEnd(width)}  ${cellText(item, 200)}`);
    });
  }
  return `${lines.join("\n")}\n`;
}

export function cellText(value: unknown, maxWidth: number): string {
  let text: string;
  if (value === null || value === undefined || value === "") text = "-";
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  text = text.replace(/\s+/g, " ");
  return text.length > maxWidth ? `${text.slice(0, maxWidth - 1)}…` : text;
}

/** `error: Bad Request (400 invalid_schedule)` then the detail and every `path: message`. */
export function renderProblem(problem: Problem): string {
  const code = problem.code ? ` ${problem.code}` : "";
  const lines = [`error: ${problem.title} (${problem.status}${code})`];
  if (problem.detail) lines.push(`  ${problem.detail}`);
  for (const error of problem.errors ?? []) lines.push(`  ${error.path || "(body)"}: ${error.message}`);
  return `${lines.join("\n")}\n`;
}

/**
 * An instant as wall time in a zone: `2026-12-01 09:00:00 CET (Tue)`.
 * @example formatInZone("2026-12-01T08:00:00.000Z", "Europe/Berlin")
 */
export function formatInZone(instant: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    weekday: "short",
    timeZoneName: "short",
    hourCycle: "h23",
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")} ${part("timeZoneName")} (${part("weekday")})`;
}
