// The calendar form: rules as lines of text, one rule a line, read and written here.
//   2026-12-25               a date
//   2026-12-24..2026-12-31   a range (inclusive)
//   sat,sun                  weekly days
// Anything after `#` is a comment. A line that is none of these is sent as written, so the
// API's answer names it (rules.<i>) beside every other problem.

export interface CalendarRuleInput {
  type: string;
  [field: string]: unknown;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAYS = new Set(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);

/** One rule per non-empty line, in order (so rules.<i> errors point at line i+1). */
export function rulesFromText(text: string): CalendarRuleInput[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.length > 0)
    .map(ruleFromLine);
}

function ruleFromLine(line: string): CalendarRuleInput {
  if (DATE.test(line)) return { type: "date", date: line };
  const range = /^(\S+)\s*\.\.\s*(\S+)$/.exec(line);
  if (range) return { type: "range", from: range[1], to: range[2] };
  const days = line
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (days.length > 0 && days.every((day) => DAYS.has(day))) return { type: "weekly", days };
  return { type: "date", date: line };
}

/** The rules as the form shows them. */
export function rulesToText(rules: readonly CalendarRuleInput[]): string {
  return rules
    .map((rule) => {
      if (rule.type === "date") return String(rule.date);
      if (rule.type === "range") return `${String(rule.from)}..${String(rule.to)}`;
      if (rule.type === "weekly" && Array.isArray(rule.days)) return rule.days.join(",");
      return JSON.stringify(rule);
    })
    .join("\n");
}

/** A rule as one short phrase for the list page. */
export function describeRule(rule: CalendarRuleInput): string {
  if (rule.type === "date") return String(rule.date);
  if (rule.type === "range") return `${String(rule.from)} to ${String(rule.to)}`;
  if (rule.type === "weekly" && Array.isArray(rule.days)) return `every ${rule.days.join(", ")}`;
  return rule.type;
}

/** API field paths (rules.3.date) to the form's fields. */
export function calendarFieldOf(path: string): string | null {
  if (path === "name" || path === "timezone" || path === "description") return path;
  if (path.startsWith("rules")) return "rules";
  return null;
}
