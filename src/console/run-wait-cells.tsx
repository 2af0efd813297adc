// How the console says why a run waits and whose its lateness is (the run view's `waiting` and
// `lateness`, src/core/load/run-waits.ts): under the state and the lateness of every runs table, and on
// the run page.
import { formatMs } from "./format";
import type { Run } from "./types";

/** What each cause of a job's own wait is called in the console. */
const POLICY_NAMES: Record<string, string> = {
  overlap: "overlap buffer",
  flow_control: "flow control",
  tenant_limits: "tenant limits",
  backfill: "backfill",
  catch_up: "catch-up",
  misfire: "misfire",
};

/** The run's wait, in words, or nothing once it went out. */
export function WaitingNote({ run }: { run: Run }) {
  if (!run.waiting) return null;
  return (
    <div class="muted waiting" data-waiting={run.waiting.cause}>
      {run.waiting.reason}
    </div>
  );
}

/** The scheduler's own part of the lateness and the job's, e.g. "ours 12 ms · flow control 9.98 s". */
export function latenessSplitText(run: Run): string | null {
  const split = run.lateness;
  if (!split) return null;
  const ours = `ours ${formatMs(split.scheduler_ms)}`;
  if (split.policy === null || split.policy_ms === 0) return ours;
  return `${ours} · ${POLICY_NAMES[split.policy] ?? split.policy} ${formatMs(split.policy_ms)}`;
}

export function LatenessCell({ run }: { run: Run }) {
  const split = latenessSplitText(run);
  return (
    <>
      {formatMs(run.lateness_ms)}
      {split === null ? null : (
        <div class="muted" data-lateness-split={run.lateness?.policy ?? "scheduler"}>
          {split}
        </div>
      )}
    </>
  );
}
