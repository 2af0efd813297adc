// A schedule file's plan as people read it in a terminal or a pull request's CI log: one line per
// job or calendar that changes, its changed fields beneath, the notes, then the counts.
import type { ScheduleFilePlan } from "../client/index";
import type { FieldChangeEntry, PlanCounts } from "../core/schedule-file/plan-schema";

const SIGN = { create: "+", update: "~", adopt: "~", delete: "-" } as const;
const MAX_VALUE_WIDTH = 100;

/** A value as the file would write it, cut short when long (the JSON form has it whole). */
function shown(value: unknown): string {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > MAX_VALUE_WIDTH ? `${text.slice(0, MAX_VALUE_WIDTH - 1)}…` : text;
}

function changeLines(changes: readonly FieldChangeEntry[]): string[] {
  return changes.map((change) => `      ${change.path}: ${shown(change.before)} -> ${shown(change.after)}`);
}

function countsLine(what: string, counts: PlanCounts): string {
  return `${what}: ${counts.create} to create, ${counts.update} to change, ${counts.adopt} to adopt, ${counts.delete} to delete, ${counts.unchanged} unchanged`;
}

/**
 * The plan as text; `verb` says whether it is what would happen or what did.
 * @example renderPlan(plan, "schedules.yaml", "plan") // "  + job nightly-report\n..."
 */
export function renderPlan(plan: ScheduleFilePlan, fileName: string, verb: "plan" | "applied"): string {
  const lines: string[] = [];
  for (const entry of plan.calendars) {
    lines.push(`  ${SIGN[entry.action]} calendar ${entry.name}${entry.action === "adopt" ? " (adopt)" : ""}`);
    if ("changes" in entry) lines.push(...changeLines(entry.changes));
  }
  for (const entry of plan.jobs) {
    const id = "id" in entry && entry.id !== undefined ? `  ${entry.id}` : "";
    const extra =
      entry.action === "create" && entry.paused
        ? " (paused)"
        : entry.action === "adopt"
          ? " (adopt)"
          : entry.action === "delete"
            ? ` (${entry.reason === "duplicate" ? "a second job of this name" : "not in the file"})`
            : "";
    lines.push(`  ${SIGN[entry.action]} job ${entry.name}${id}${extra}`);
    if ("changes" in entry) lines.push(...changeLines(entry.changes));
  }
  const head =
    lines.length === 0
      ? `${fileName}: no changes (managed_by ${JSON.stringify(plan.managed_by)})`
      : `${fileName} (managed_by ${JSON.stringify(plan.managed_by)}): ${verb === "plan" ? "apply would make these changes" : "applied"}`;
  const notes = plan.notes.map(
    (note) => `note: ${note.name}${note.id ? ` (${note.id})` : ""}: ${note.message}`,
  );
  return [
    head,
    ...lines,
    ...notes,
    countsLine("jobs", plan.summary.jobs),
    countsLine("calendars", plan.summary.calendars),
    "",
  ].join("\n");
}
