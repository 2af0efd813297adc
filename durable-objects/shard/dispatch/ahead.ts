// Dispatch ahead of the instant. A shard knows its runs long before they are due: a job whose next
// instant falls within the lead window gets that instant's run created now and sent to the queue
// now (with a delivery delay), and the consumer holds it to its exact instant (src/queue/consumers/hold.ts)
// before it claims it here. Everything that decides whether the instant runs stays where it was:
//  - the job's timer is not moved: the pass at the instant fires it as always (misfire, max_runs,
//    end_at, COMPLETED) and finds the run already there (firing.ts counts it like a new one);
//  - only jobs with overlap "allow" go ahead: the other policies decide against the runs in
//    flight at the instant, which are not known earlier;
//  - a pause, edit, delete or re-derived timer before the instant deletes the run queued ahead
//    (dropAheadRuns): its message is then refused at the claim (unknown run), and the instant is
//    decided again by the job's timer, e.g. it still runs if the job is resumed before it;
//  - the claim refuses a run whose instant has not come (execution.ts, `not_due`).
// Runs sent ahead count in the dispatch window (../dispatch/budget.ts) like any run in flight: a
// pass sends ahead what the window has room for, and while it is full, the instants of tenants
// still under their share of it (queueAheadWithinShares), so another tenant's flood does not
// turn a punctual job into one sent at its instant behind the flood's queue.
// Until its instant a run queued ahead is never written to its run history (it is left clean), so
// history and the console never show it dispatched early.
import { isExcluded } from "../../../src/core/exclusions";
import { windowSkipReason } from "../../../src/core/job-timeline";
import { exclusionsOf, type ShardJobRow, specOf } from "../jobs/held-jobs";
import { getRuns, insertRun, type RunRow } from "../runs/run-store";
import { deleteUnfiredAheadRun } from "../runs/run-timers";

/**
 * The jobs whose next instant may still be queued ahead: active, with a timer, not yet queued for
 * that instant, overlap "allow". Word for word the WHERE of the jobs_ahead_due index (shard schema
 * v12), so the planner uses it; change both or neither.
 */
export const AHEAD_ELIGIBLE =
  "status = 'ACTIVE' AND next_fire_ms IS NOT NULL AND ahead_scheduled_ms IS NOT next_scheduled_ms AND json_extract(spec_json, '$.overlap') = 'allow'";

/**
 * How long after its instant the pass that fires a job whose run went ahead may wait (the job's
 * timer, misfire, max_runs, completion): the run itself is called at the instant, and in a burst
 * the first claims would otherwise queue behind that pass on the shard's one thread. Short enough
 * that an every-second job's next instant still goes ahead.
 */
export const SENT_AHEAD_TIMER_DELAY_MS = 100;

/** The earliest job timer: a job whose run went ahead rings SENT_AHEAD_TIMER_DELAY_MS late. */
export function nextJobTimerMs(sql: SqlStorage): number | null {
  const row = sql
    .exec<{ direct_ms: number | null; ahead_ms: number | null }>(
      `SELECT
         (SELECT MIN(next_fire_ms) FROM jobs WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL
            AND ahead_scheduled_ms IS NOT next_scheduled_ms) AS direct_ms,
         (SELECT MIN(next_fire_ms) FROM jobs WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL
            AND ahead_scheduled_ms IS next_scheduled_ms) AS ahead_ms`,
    )
    .one();
  const aheadMs = row.ahead_ms === null ? null : row.ahead_ms + SENT_AHEAD_TIMER_DELAY_MS;
  if (row.direct_ms === null) return aheadMs;
  return aheadMs === null ? row.direct_ms : Math.min(row.direct_ms, aheadMs);
}

/** Jobs queued ahead in one pass; the rest wait for the next pass (it comes at once when busy). */
export const MAX_AHEAD_JOBS_PER_TICK = 5_000;

export const AHEAD_REASON = "due (queued ahead of its instant)";

/** A job handled by queueAheadRuns, with the run it queued (null: its instant is excluded). */
export type QueuedAhead = ShardJobRow & { runId: string | null };

/**
 * Creates the runs of the next instants due within (nowMs, nowMs + leadMs] as SCHEDULED and due
 * now (a crash before the send leaves them to the next pass), for the same pass to send. Returns
 * the jobs handled.
 */
export function queueAheadRuns(
  sql: SqlStorage,
  leadMs: number,
  nowMs: number,
  limit = MAX_AHEAD_JOBS_PER_TICK,
): QueuedAhead[] {
  if (leadMs <= 0) return [];
  const jobs = sql
    .exec<ShardJobRow>(
      `SELECT * FROM jobs WHERE ${AHEAD_ELIGIBLE} AND next_fire_ms > ? AND next_fire_ms <= ? ORDER BY next_fire_ms LIMIT ?`,
      nowMs,
      nowMs + leadMs,
      Math.min(limit, MAX_AHEAD_JOBS_PER_TICK),
    )
    .toArray();
  return queueJobsAhead(sql, jobs, nowMs);
}

/**
 * Rows of the lead window looked at, at most, for tenants under their share while the window is
 * full (queueAheadWithinShares): past these the instants fire at the instant, in their share.
 */
export const SHARE_SCAN_ROWS = 512;

/**
 * While the window has no room, the next instants of the tenants still under their share of it
 * (`shareLeft`) go ahead anyway, up to that share: a tenant with one job due each second is then
 * held to its instant by the consumer, as when it is alone, instead of being sent at its instant
 * behind the queue another tenant's flood keeps full. Looks at the first SHARE_SCAN_ROWS of the
 * lead window (ids and tenants only), or of `onlyJobIds` in it. Returns the jobs handled.
 */
export function queueAheadWithinShares(
  sql: SqlStorage,
  leadMs: number,
  nowMs: number,
  shareLeft: (tenantId: string) => number,
  onlyJobIds: readonly string[] | null = null,
): QueuedAhead[] {
  if (leadMs <= 0) return [];
  const candidates = sql
    .exec<{ job_id: string; tenant_id: string }>(
      `SELECT job_id, tenant_id FROM jobs WHERE ${AHEAD_ELIGIBLE} AND next_fire_ms > ? AND next_fire_ms <= ?
       ${onlyJobIds === null ? "" : "AND job_id IN (SELECT value FROM json_each(?4))"}
       ORDER BY next_fire_ms LIMIT ?3`,
      nowMs,
      nowMs + leadMs,
      SHARE_SCAN_ROWS,
      ...(onlyJobIds === null ? [] : [JSON.stringify(onlyJobIds)]),
    )
    .toArray();
  const left = new Map<string, number>();
  const chosen: string[] = [];
  for (const { job_id: jobId, tenant_id: tenantId } of candidates) {
    const allowance = left.get(tenantId) ?? shareLeft(tenantId);
    if (allowance <= 0) {
      left.set(tenantId, 0);
      continue;
    }
    left.set(tenantId, allowance - 1);
    chosen.push(jobId);
  }
  if (chosen.length === 0) return [];
  const jobs = sql
    .exec<ShardJobRow>(
      "SELECT * FROM jobs WHERE job_id IN (SELECT value FROM json_each(?)) ORDER BY next_fire_ms",
      JSON.stringify(chosen),
    )
    .toArray();
  return queueJobsAhead(sql, jobs, nowMs);
}

/** Each job's next instant queued ahead (its run created), and the job marked as queued for it. */
function queueJobsAhead(sql: SqlStorage, jobs: readonly ShardJobRow[], nowMs: number): QueuedAhead[] {
  const queued: QueuedAhead[] = jobs.map((job) => ({ ...job, runId: queueAheadRun(sql, job, nowMs) }));
  if (jobs.length > 0) {
    sql.exec(
      `UPDATE jobs SET ahead_scheduled_ms = next_scheduled_ms
       WHERE job_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(jobs.map((job) => job.job_id)),
    );
  }
  return queued;
}

function queueAheadRun(sql: SqlStorage, job: ShardJobRow, nowMs: number): string | null {
  const scheduledAtMs = job.next_scheduled_ms as number;
  // An excluded instant, or one outside the delivery window, becomes a SKIPPED run at the
  // instant, as always: nothing to send.
  if (isExcluded(scheduledAtMs, exclusionsOf(job))) return null;
  if (windowSkipReason(specOf(job), job.job_id, scheduledAtMs) !== null) return null;
  return insertRun(sql, {
    jobId: job.job_id,
    tenantId: job.tenant_id,
    kind: "schedule",
    scheduledAtMs,
    fireAtMs: job.next_fire_ms as number,
    maxAttempts: specOf(job).retry.max_attempts,
    jobVersion: job.version,
    state: "SCHEDULED",
    dueAtMs: nowMs,
    waiting: null,
    reason: AHEAD_REASON,
    nowMs,
  });
}

/**
 * Deletes the run a job queued ahead for an instant that has not come yet (pause, edit, delete,
 * a moved timer). Deleted, not cancelled: the instant was never fired as far as the job's timer
 * is concerned, and its deterministic run id must stay free for the instant's own decision.
 * Returns how many were deleted (0 or 1).
 */
export function dropAheadRuns(sql: SqlStorage, jobId: string, nowMs: number): number {
  const deleted = deleteUnfiredAheadRun(sql, jobId, nowMs);
  sql.exec(
    "UPDATE jobs SET ahead_scheduled_ms = NULL WHERE job_id = ? AND ahead_scheduled_ms IS NOT NULL",
    jobId,
  );
  return deleted;
}

/** The earliest moment a job's next instant should be queued ahead (null: none eligible). */
export function nextAheadMs(sql: SqlStorage, leadMs: number): number | null {
  if (leadMs <= 0) return null;
  const row = sql
    .exec<{ ms: number | null }>(`SELECT MIN(next_fire_ms) AS ms FROM jobs WHERE ${AHEAD_ELIGIBLE}`)
    .one();
  return row.ms === null ? null : row.ms - leadMs;
}

/** What a pass knows when it queues runs ahead (../wheel/tick.ts). */
export interface AheadPass {
  /** The jobs read in this pass, by id; the jobs queued ahead are added. */
  jobs: Map<string, ShardJobRow | null>;
  /** Room left in the dispatch window once this pass's due runs are counted. */
  room: number;
  /** What each tenant may still send ahead (src/core/fair-share.ts, shareLeft). */
  shareLeftOf: (tenantId: string) => number;
  /** The jobs this pass fired: their timers just moved, maybe into the lead window. */
  firedJobIds: readonly string[];
}

/**
 * Creates the runs of instants within the lead window: as many as the window has room for, then,
 * while it is full, those of tenants under their share. Among those, the jobs this pass fired are
 * looked at every pass (a job due every second has its next instant in the lead window from the
 * pass after its instant until that instant, less than a second); the whole lead window at most
 * as often as `shareScanDue` allows. Returns the runs, their jobs added to `pass.jobs`.
 */
export function queueAheadInPass(
  sql: SqlStorage,
  // The pass's settings this needs (../wheel/pass-settings.ts, TickSettings).
  settings: { leadMs: number; shareScanDue?: (nowMs: number) => boolean },
  nowMs: number,
  pass: AheadPass,
): { jobs: number; runs: RunRow[]; heldBack: boolean } {
  const { room } = pass;
  const queued = room > 0 ? queueAheadRuns(sql, settings.leadMs, nowMs, room) : [];
  let heldBack = queued.length >= room && aheadWaiting(sql, settings.leadMs, nowMs);
  if (heldBack) {
    const taken = new Map<string, number>();
    const shareLeft = (tenantId: string) => pass.shareLeftOf(tenantId) - (taken.get(tenantId) ?? 0);
    const within = (jobIds: readonly string[] | null) => {
      const more = queueAheadWithinShares(sql, settings.leadMs, nowMs, shareLeft, jobIds);
      for (const job of more) taken.set(job.tenant_id, (taken.get(job.tenant_id) ?? 0) + 1);
      queued.push(...more);
    };
    for (const job of queued) taken.set(job.tenant_id, (taken.get(job.tenant_id) ?? 0) + 1);
    const before = queued.length;
    if (pass.firedJobIds.length > 0) within(pass.firedJobIds);
    if (settings.shareScanDue?.(nowMs) ?? true) within(null);
    if (queued.length > before) heldBack = aheadWaiting(sql, settings.leadMs, nowMs);
  }
  if (queued.length === 0) return { jobs: 0, runs: [], heldBack };
  for (const job of queued) pass.jobs.set(job.job_id, job);
  const runs = getRuns(
    sql,
    queued.flatMap((job) => (job.runId === null ? [] : [job.runId])),
  );
  return { jobs: queued.length, runs: [...runs.values()], heldBack };
}

/** Whether a job's next instant is in the lead window and still to be queued ahead. */
function aheadWaiting(sql: SqlStorage, leadMs: number, nowMs: number): boolean {
  const aheadAtMs = nextAheadMs(sql, leadMs);
  return aheadAtMs !== null && aheadAtMs <= nowMs && aheadAtMs + leadMs > nowMs;
}
