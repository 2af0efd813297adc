// State changes of many runs in one statement, for the per-run hot paths (dispatch, claims,
// outcomes): a per-run moveRun is one UPDATE, one row object and one history string per run, and
// over a 20,000-run burst those were most of the shard's SQLite time. Each appends to the run's
// history the same event moveRun would (same keys, same order) and checks the same transition.
import { type RunState, sqlInList, transition } from "../../../src/core/run-state";

/** One run moved to ACQUIRED: its fence, the job version stamped on it, its lease, why. */
export interface Acquisition {
  runId: string;
  fence: number;
  jobVersion: number;
  dueAtMs: number;
  reason: string;
}

/** The DISPATCHED event of a run handed out (it is written as the send starts). */
export const HANDED_OUT_REASON = "sent to the dispatch queue";

/**
 * SCHEDULED -> ACQUIRED -> DISPATCHED for every run given, in one statement, before the send: its
 * history gets both events, as when each was its own write; a run no longer SCHEDULED is left
 * alone. A send that fails moves the run back (queue-hand-off.ts), and a shard that dies
 * mid-send leaves it to its lease, as an ACQUIRED run was. A second UPDATE of every run after its
 * send was a tenth of a backlogged burst's shard time. A run whose instant is still to come (sent
 * ahead, ../dispatch/ahead.ts) stays clean: history learns of it once it is claimed. Returns the
 * ids moved.
 */
export function handOutRuns(sql: SqlStorage, runs: readonly Acquisition[], nowMs: number): string[] {
  if (runs.length === 0) return [];
  return batchMoveReturning<{ run_id: string }>(sql, {
    from: ["SCHEDULED"],
    via: { state: "ACQUIRED", reason: HANDED_OUT_REASON },
    to: "DISPATCHED",
    nowMs,
    set: `fence = batch.fence, job_version = batch.job_version, due_at_ms = batch.due_at_ms,
     dispatch_count = dispatch_count + 1`,
    rows: runs.map((run) => [run.runId, run.reason, run.fence, run.jobVersion, run.dueAtMs]),
    columns: ["fence", "job_version", "due_at_ms"],
  }).map((row) => row.run_id);
}

/** One run a consumer claimed: its RUNNING lease and the lateness of the attempt. */
export interface ClaimStart {
  runId: string;
  dueAtMs: number;
  latenessMs: number;
}

export const CLAIM_REASON = "claimed by a consumer";

/**
 * ACQUIRED or DISPATCHED -> RUNNING for every claimed run, in one statement (a claim may land
 * before the DISPATCHED bookkeeping). The caller has already decided each claim on the rows it read.
 */
export function startClaimedRuns(sql: SqlStorage, runs: readonly ClaimStart[], nowMs: number): string[] {
  if (runs.length === 0) return [];
  return batchMove(
    sql,
    ["ACQUIRED", "DISPATCHED"],
    "RUNNING",
    nowMs,
    `due_at_ms = batch.due_at_ms, lateness_ms = COALESCE(runs.lateness_ms, batch.lateness_ms),
     accepted_at_ms = NULL, heartbeat_at_ms = NULL, slow_since_ms = NULL`,
    runs.map((run) => [run.runId, CLAIM_REASON, run.dueAtMs, run.latenessMs]),
    ["due_at_ms", "lateness_ms"],
  );
}

/** The SCHEDULED event of a run its consumer gave back without calling it. */
export const GIVEN_BACK_REASON = "given back before its call: its consumer had no connection free";

/**
 * Runs a consumer gives back without calling them (src/queue/consumers/batch-connections.ts),
 * claimed (RUNNING) or not: back to SCHEDULED and due now, as if that send had not happened. The
 * same attempt; its next send takes a new fence, and its lateness is measured at the claim that
 * calls it. Only a run still at the fence it was sent with moves (one that moved on, or a
 * long-running call its target accepted, is left alone). Returns the ids moved.
 */
export function giveBackRuns(
  sql: SqlStorage,
  runs: readonly { runId: string; fence: number }[],
  nowMs: number,
): string[] {
  if (runs.length === 0) return [];
  return batchMoveReturning<{ run_id: string }>(sql, {
    from: ["ACQUIRED", "DISPATCHED", "RUNNING"],
    to: "SCHEDULED",
    nowMs,
    set: `due_at_ms = ?2, dispatch_count = MAX(0, dispatch_count - 1), slow_since_ms = NULL,
     lateness_ms = CASE WHEN runs.attempt = 1 THEN NULL ELSE runs.lateness_ms END`,
    rows: runs.map((run) => [run.runId, GIVEN_BACK_REASON, run.fence]),
    columns: ["fence"],
    where: "AND runs.fence = batch.fence AND runs.accepted_at_ms IS NULL",
  }).map((row) => row.run_id);
}

/**
 * The answers to a batch of `count` requests in their order: those a fast path decided (by request
 * index), then the others' answers in the order the rest were decided.
 */
export function inRequestOrder<T>(count: number, decided: ReadonlyMap<number, T>, rest: readonly T[]): T[] {
  let next = 0;
  return Array.from({ length: count }, (_, index) => decided.get(index) ?? (rest[next++] as T));
}

/** A claim the shard may grant without reading the run first: its job is active at `jobVersion`. */
export interface ReadyClaim {
  runId: string;
  jobId: string;
  fence: number;
  jobVersion: number;
  /** The RUNNING lease: now plus the job's timeout plus the grace. */
  dueAtMs: number;
}

/** What a granted claim needs of its run. */
export type ClaimedRunRow = {
  run_id: string;
  job_id: string;
  tenant_id: string;
  attempt: number;
  scheduled_at_ms: number;
  fire_at_ms: number;
};

/**
 * The claims' fast path: ACQUIRED or DISPATCHED -> RUNNING in one statement, without reading the
 * runs first, for every run still at the claimed fence and job version whose instant has come.
 * Any other run is left as it is, for the caller to decide with its row (why it is refused).
 */
export function claimReadyRuns(
  sql: SqlStorage,
  claims: readonly ReadyClaim[],
  nowMs: number,
): ClaimedRunRow[] {
  if (claims.length === 0) return [];
  return batchMoveReturning<ClaimedRunRow>(sql, {
    from: ["ACQUIRED", "DISPATCHED"],
    to: "RUNNING",
    nowMs,
    set: `due_at_ms = batch.due_at_ms, lateness_ms = COALESCE(runs.lateness_ms, MAX(0, ?2 - runs.fire_at_ms)),
     accepted_at_ms = NULL, heartbeat_at_ms = NULL, slow_since_ms = NULL`,
    rows: claims.map((claim) => [
      claim.runId,
      CLAIM_REASON,
      claim.fence,
      claim.jobVersion,
      claim.dueAtMs,
      claim.jobId,
    ]),
    columns: ["claimed_fence", "job_version", "due_at_ms", "claimed_job_id"],
    where: `AND runs.fence = batch.claimed_fence AND runs.job_version = batch.job_version
       AND runs.job_id = batch.claimed_job_id AND runs.fire_at_ms <= ?2`,
    returning:
      "runs.run_id, runs.job_id, runs.tenant_id, runs.attempt, runs.scheduled_at_ms, runs.fire_at_ms",
  });
}

/**
 * The one UPDATE behind every batch move. `rows` are `[run_id, reason, ...columns]`, read back as
 * `batch.<column>` in `set`; the event's fence is the run's fence after the move.
 */
function batchMove(
  sql: SqlStorage,
  from: readonly RunState[],
  to: RunState,
  nowMs: number,
  set: string,
  rows: readonly (string | number | null)[][],
  columns: readonly string[],
  eventExtra = "",
): string[] {
  return batchMoveReturning<{ run_id: string }>(sql, { from, to, nowMs, set, rows, columns, eventExtra }).map(
    (row) => row.run_id,
  );
}

interface BatchMoveSpec {
  from: readonly RunState[];
  /**
   * A state the run passes through on the way to `to`: its event comes first, with the batch's
   * reason, and the event of `to` says `reason`.
   */
  via?: { state: RunState; reason: string };
  to: RunState;
  nowMs: number;
  set: string;
  rows: readonly (string | number | null)[][];
  columns: readonly string[];
  eventExtra?: string;
  /** More conditions on `runs` and `batch` (a fast path moves only the runs it can decide blind). */
  where?: string;
  /** The columns of each moved row to return (run_id at least). */
  returning?: string;
}

function batchMoveReturning<Row extends { run_id: string }>(
  sql: SqlStorage,
  {
    from,
    via,
    to,
    nowMs,
    set,
    rows,
    columns,
    eventExtra = "",
    where = "",
    returning = "runs.run_id",
  }: BatchMoveSpec,
): Row[] {
  for (const state of from) transition(state, via?.state ?? to);
  if (via) transition(via.state, to);
  const extracted = columns.map((column, index) => `json_extract(value, '$[${index + 2}]') AS ${column}`);
  const fence = columns.includes("fence") ? "batch.fence" : "runs.fence";
  const event = (state: string, reason: string) =>
    `json_object('state', ${state}, 'at_ms', ?2, 'reason', ${reason}, 'attempt', runs.attempt, 'fence', ${fence}${eventExtra})`;
  const events = via
    ? `${event("?4", "batch.reason")} || ',' || ${event("?1", "?5")}`
    : event("?1", "batch.reason");
  const params: (string | number)[] = [to, nowMs, JSON.stringify(rows)];
  if (via) params.push(via.state, via.reason);
  return sql
    .exec<Row>(
      `UPDATE runs SET state = ?1, ${set},
         events_json = substr(events_json, 1, length(events_json) - 1)
           || CASE WHEN length(events_json) > 2 THEN ',' ELSE '' END
           || ${events}
           || ']',
         updated_at_ms = ?2, rev = rev + 1,
         dirty = CASE WHEN runs.fire_at_ms > ?2 THEN 0 ELSE 1 END
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS reason, ${extracted.join(", ")}
             FROM json_each(?3)) AS batch
       WHERE runs.run_id = batch.id AND runs.state IN ${sqlInList(from)} ${where}
       RETURNING ${returning}`,
      ...params,
    )
    .toArray();
}
