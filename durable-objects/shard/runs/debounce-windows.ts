// Debounced triggers at the job's shard (the rule: src/core/runs/debounce.ts). The shard is the one
// writer of the job's runs, so a trigger's fold is decided here against the stored window of
// (job, key), in the same transaction that creates or moves the run: a restart, or two triggers
// arriving through two Workers, cannot make two runs of one window.
import {
  type Debounce,
  type DebounceWindow,
  debounceKeyOf,
  debounceRuleOf,
  decideDebounce,
} from "../../../src/core/runs/debounce";
import { runIdFor } from "../../../src/core/runs/run-id";
import type { TriggerResult } from "../../../src/shard/protocol";
import { foldIntoSettledRecord } from "../history/folds";
import { startRun } from "../instants/firing";
import { jobSpec } from "../jobs/job-specs";
import type { JobRecord } from "../state/job-book";
import { insertRun, patchRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { freeTriggerInstant } from "./trigger-instants";

type WindowRow = {
  run_id: string;
  scheduled_at_ms: number;
  opened_at_ms: number;
  fire_at_ms: number;
};

export function triggerDebounced(
  state: ShardState,
  job: JobRecord,
  debounce: Debounce,
  triggerKey: string | undefined,
  nowMs: number,
): TriggerResult {
  const { sql } = state;
  const rule = debounceRuleOf(debounce);
  const key = debounceKeyOf(debounce, triggerKey);
  // Windows that take no more triggers go at the job's next trigger: a job keeps one row per live key.
  sql.exec("DELETE FROM debounce_windows WHERE job_id = ? AND expires_at_ms <= ?", job.job_id, nowMs);
  const stored = storedWindow(sql, job.job_id, key);
  const decision = decideDebounce(rule, stored === null ? null : windowOf(state, stored), nowMs);
  if (decision.action === "fold" && stored !== null) {
    foldInto(state, job, stored, decision.fireAtMs, nowMs);
    if (rule.mode === "trailing") {
      sql.exec(
        "UPDATE debounce_windows SET fire_at_ms = ?1, expires_at_ms = ?1 WHERE job_id = ?2 AND debounce_key = ?3",
        decision.fireAtMs,
        job.job_id,
        key,
      );
    }
    return {
      ok: true,
      runId: decision.runId,
      scheduledAtMs: stored.scheduled_at_ms,
      fireAtMs: decision.fireAtMs,
      folded: true,
    };
  }
  const scheduledAtMs = freeTriggerInstant(state, job.job_id, nowMs);
  const runId = runIdFor(job.job_id, scheduledAtMs);
  if (rule.mode === "leading") {
    startRun(
      state,
      job,
      { scheduledAtMs, fireAtMs: scheduledAtMs },
      "trigger",
      "triggered manually (debounce leading)",
      nowMs,
    );
  } else {
    // Waits on the wheel until its fire time, which each folded trigger may move later.
    insertRun(state, {
      jobId: job.job_id,
      tenantId: job.tenant_id,
      kind: "trigger",
      scheduledAtMs,
      fireAtMs: decision.fireAtMs,
      maxAttempts: jobSpec(state, job).retry.max_attempts,
      jobVersion: job.version,
      priority: job.priority,
      state: "SCHEDULED",
      dueAtMs: decision.fireAtMs,
      waiting: null,
      reason: "triggered manually (debounce trailing)",
      nowMs,
    });
  }
  const expiresAtMs = rule.mode === "leading" ? nowMs + rule.periodMs : decision.fireAtMs;
  sql.exec(
    `INSERT OR REPLACE INTO debounce_windows
       (job_id, debounce_key, run_id, scheduled_at_ms, opened_at_ms, fire_at_ms, expires_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    job.job_id,
    key,
    runId,
    scheduledAtMs,
    nowMs,
    decision.fireAtMs,
    expiresAtMs,
  );
  return { ok: true, runId, scheduledAtMs, fireAtMs: decision.fireAtMs, folded: false };
}

function storedWindow(sql: SqlStorage, jobId: string, key: string): WindowRow | null {
  return (
    sql
      .exec<WindowRow>(
        `SELECT run_id, scheduled_at_ms, opened_at_ms, fire_at_ms FROM debounce_windows
         WHERE job_id = ? AND debounce_key = ?`,
        jobId,
        key,
      )
      .toArray()[0] ?? null
  );
}

function windowOf(state: ShardState, row: WindowRow): DebounceWindow {
  const run = state.runs.get(row.run_id);
  return {
    runId: row.run_id,
    openedAtMs: row.opened_at_ms,
    fireAtMs: row.fire_at_ms,
    // Not sent yet: still on the wheel, so moving its fire time moves the call.
    runWaiting: run !== undefined && run.state === "SCHEDULED" && run.dispatch_count === 0,
  };
}

/**
 * Counts the trigger on the run (live, or in its history record if it settled already), and
 * moves a run still waiting on the wheel to its new fire time.
 */
function foldInto(
  state: ShardState,
  job: JobRecord,
  window: WindowRow,
  fireAtMs: number,
  nowMs: number,
): void {
  const run = state.runs.get(window.run_id);
  if (run === undefined) {
    foldIntoSettledRecord(state, job, window.scheduled_at_ms);
    return;
  }
  const waiting = run.state === "SCHEDULED" && run.dispatch_count === 0;
  patchRun(state, run, nowMs, {
    triggers_folded: run.triggers_folded + 1,
    ...(waiting ? { fire_at_ms: fireAtMs } : {}),
    ...(waiting && run.due_at_ms !== null ? { due_at_ms: fireAtMs } : {}),
  });
}
