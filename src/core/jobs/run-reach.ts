// A job that can never run is refused, like a cron that can never fire: here, one whose delivery
// window (or flexible window) leaves no instant to run within the search bound, while its specs,
// start/end and exclusions alone would run one (those have their own checks and messages).
import type { CompiledExclusions } from "../schedules/exclusions";
import type { SpecIssue } from "../schedules/schedule-check";
import { SKIPPED_INSTANTS_LIMIT } from "../schedules/search-bound";
import type { TimingSpec } from "./job-timeline";
import { searchRunFires } from "./run-search";

/** Any id: where an instant fires within its window does not decide whether it runs. */
const PROBE_JOB_ID = "reach";

/**
 * Why the job's window means it never runs from `nowMs` on, or null. Named on `window` (or
 * `flexible_window` when that is the only one); null when the job would not run without the
 * window either (the start/end and exclusion checks say why).
 *
 * @example windowReachIssue({ ...daily12UTC, window: { between: ["08:00", "09:00"], outside: "skip" } }, nowMs, NO_EXCLUSIONS)
 * // { path: "window", message: "skips every instant of the schedule ... the job would never run" }
 */
export function windowReachIssue(
  spec: TimingSpec,
  nowMs: number,
  exclusions: CompiledExclusions,
): SpecIssue | null {
  const window = spec.window ?? null;
  const flexible = spec.flexible_window ?? null;
  if (window === null && flexible === null) return null;
  const placed = searchRunFires(spec, PROBE_JOB_ID, nowMs, 1, exclusions);
  if (placed.fires.length > 0) return null;
  const unplaced = searchRunFires(
    { ...spec, window: null, flexible_window: null },
    PROBE_JOB_ID,
    nowMs,
    1,
    exclusions,
  );
  if (unplaced.fires.length === 0) return null;
  const first = new Date(unplaced.fires[0]?.scheduledAtMs ?? nowMs).toISOString();
  const reach =
    placed.stop === null
      ? "every instant the schedule has"
      : `every instant of the schedule that was examined (up to ${SKIPPED_INSTANTS_LIMIT}, each within 5 years of the last)`;
  return {
    path: window === null ? "flexible_window" : "window",
    message: `skips ${reach}, from ${first} on: the job would never run`,
  };
}
