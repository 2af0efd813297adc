// The contract between the Worker (API, consumers, maintenance) and the ShardScheduler Durable
// Object. Plain data only: these values cross the RPC boundary.
import type { JobSpec } from "../core/jobs/job-spec";
import type { QstashRunContext } from "../core/qstash/delivery";
import type { CompletionMode } from "../core/runs/long-running";
import type { TargetOutcome } from "../core/runs/outcome";
import type { JobStatus } from "../core/runs/run-state";

export type { JobStatus };

/**
 * What a shard holds of a job. D1 is the source of truth; the shard keeps the latest version it
 * was sent and ignores older ones, so re-sending (the outbox sweep) is always safe.
 * Every change to a job (edit, pause, resume, delete) bumps `version`.
 */
export interface ShardJob {
  jobId: string;
  /**
   * The shard the job was placed on at create (D1 `jobs.shard`). Every call about the job goes
   * there: re-hashing the id would split the job across two shards once SHARD_COUNT changes.
   */
  shard: number;
  tenantId: string;
  version: number;
  status: JobStatus;
  /**
   * The normalized JobSpec as JSON (once+delay is stored as once+at; interval.anchor defaults to
   * the job's start). A string crosses the RPC boundary far cheaper than the object tree, and the
   * shard stores exactly this text.
   */
  specJson: string;
  createdAtMs: number;
  /**
   * The tenant calendars the spec names, resolved by D1 at push time: JSON of
   * `NamedExclusionSet[]` (src/core/schedules/exclusions.ts). Absent: none.
   */
  calendarsJson?: string;
  /**
   * Grows with every edit of those calendars (the sum of their revisions; the set is fixed for a
   * job version). A snapshot of the same version with a higher one carries edited calendars.
   */
  calendarsRevision?: number;
  /**
   * The job reads COMPLETED in D1 once its spec's end has passed (src/core/jobs/job-end.ts), so the
   * shard need not write that status back. Absent: the shard writes COMPLETED when it decides it.
   */
  completionImplied?: boolean;
}

/**
 * A run handed to the execution path, its fields spelled as the columns of its row in the shard
 * (durable-objects/shard/state/run-book.ts, RunRow), so a run keeps one spelling from the shard's
 * table to the consumer.
 */
export interface DispatchRun {
  run_id: string;
  job_id: string;
  tenant_id: string;
  scheduled_at_ms: number;
  attempt: number;
  fence: number;
  job_version: number;
  /**
   * When the run may be called: its instant plus jitter. A run sent ahead of it is held by the
   * consumer until then (src/delivery/hold.ts). Absent in messages from before dispatch ahead.
   */
  fire_at_ms?: number;
  /**
   * The attempt's run token, for a run sent ahead of its instant (minted by the shard before it,
   * so the consumer need not at it). Absent: the consumer mints it.
   */
  run_token?: string;
}

/**
 * One message on the dispatch queue: runs of one shard. Bundling amortizes the queue's per-message
 * cost and the claim and outcome RPCs (one per message), and keeps production queues under their
 * per-queue message rate (docs/SCALING.md).
 */
export interface DispatchMessage {
  shard: number;
  runs: DispatchRun[];
}

/** How a run was spelled on the queue before it took its row's column names. */
interface LegacyDispatchRun
  extends Pick<DispatchRun, "run_id" | "job_id" | "attempt" | "fence" | "run_token"> {
  tenant: string;
  scheduled_at: number;
  version: number;
  fire_at?: number;
}

/** The first format: one run per message. Still read, so a deploy never strands messages in flight. */
export type SingleRunDispatchMessage = (DispatchRun | LegacyDispatchRun) & { shard: number };

/** The message's runs in today's spelling, whichever format and spelling the message was sent in. */
export function runsOfMessage(
  body: DispatchMessage | SingleRunDispatchMessage | { shard: number; runs: LegacyDispatchRun[] },
): DispatchMessage {
  if ("runs" in body && Array.isArray(body.runs)) {
    return {
      shard: body.shard,
      runs: (body.runs as (DispatchRun | LegacyDispatchRun)[]).map(currentSpelling),
    };
  }
  const { shard, ...run } = body as SingleRunDispatchMessage;
  return { shard, runs: [currentSpelling(run)] };
}

function currentSpelling(run: DispatchRun | LegacyDispatchRun): DispatchRun {
  if (!("tenant" in run)) return run;
  const { tenant, scheduled_at, version, fire_at, ...same } = run;
  return {
    ...same,
    tenant_id: tenant,
    scheduled_at_ms: scheduled_at,
    job_version: version,
    ...(fire_at === undefined ? {} : { fire_at_ms: fire_at }),
  };
}

/** A run's last state, sent to the dead-letter queue for the dead-letter consumer to record. */
export interface DeadLetterMessage {
  kind: "dead_letter";
  run_id: string;
  job_id: string;
  tenant: string;
  shard: number;
  scheduled_at: number;
  attempt: number;
  reason: "exhausted" | "permanent" | "lease_expired" | "poison";
  last_error: string | null;
  target_status: number | null;
  payload: { method: string; url: string; headers: Record<string, string>; body: unknown };
  /** The job's on_failure URL, which receives the dead-letter alert too. */
  on_failure: string | null;
  /** A /v2 job's: where its failure callback goes and what it says. */
  qstash?: QstashRunContext;
  /**
   * Set when the payload would not fit in a queue message: `payload` then holds only the method
   * and URL, and the consumer reads headers and body from the job in D1. Older messages lack it.
   */
  payload_ref?: { run_id: string; job_id: string; shard: number };
}

export interface ClaimRequest {
  runId: string;
  fence: number;
  /** The run's job, as the dispatch message says: lets the shard grant the claim without reading the run first. */
  jobId?: string;
}

export type ClaimRejection =
  | "unknown_run"
  | "duplicate"
  | "stale_fence"
  | "stale_version"
  | "job_paused"
  | "job_deleted"
  /** The run's tenant is suspended: nothing of it starts until it is unsuspended. */
  | "tenant_suspended"
  /** The run was cancelled before its claim (its job deleted, paused or edited, its tenant suspended). */
  | "cancelled"
  /** The run's instant has not come: no call may reach a target before it. */
  | "not_due";

export type ClaimResult =
  | {
      ok: true;
      runId: string;
      jobId: string;
      tenantId: string;
      attempt: number;
      scheduledAtMs: number;
      idempotencyKey: string;
      target: JobSpec["target"];
      timeoutMs: number;
      /** Claim time minus the instant's fire time: the trigger lateness of this attempt. */
      latenessMs: number;
      /** 4xx statuses the job retries anyway (classification happens in the consumer). */
      retryOnStatus: number[];
      /** Whether a 2xx answer may only start the work (long-running targets). */
      completion: CompletionMode;
      /** Set for jobs created through /v2: the call is signed and headed as QStash does. */
      qstash?: QstashRunContext;
    }
  | { ok: false; runId: string; code: ClaimRejection };

/** A consumer still holds this claimed run: renew its lease (src/core/runs/run-leases.ts). */
export interface LeaseRenewal {
  runId: string;
  fence: number;
  /** When its call started; null while it waits for a connection (absent from older consumers). */
  callStartedAtMs?: number | null;
}

export interface OutcomeReport {
  runId: string;
  fence: number;
  outcome: TargetOutcome;
  /** The run's job, as the claim said: lets the shard record a plain success without reading the run first. */
  jobId?: string;
}

export type OutcomeResult =
  | {
      ok: true;
      runId: string;
      /** RUNNING: a long-running target accepted the work and reports back later. */
      state: "SUCCEEDED" | "RETRYING" | "DEAD_LETTERED" | "RUNNING";
      nextAttemptAtMs?: number;
    }
  | { ok: false; runId: string; code: "unknown_run" | "stale_fence" | "not_running" };

export interface UpsertResult {
  ok: true;
  /** The jobs the shard now holds at the sent version (or newer). */
  confirmed: string[];
}

export type TriggerResult =
  /** `folded`: the trigger became part of a run an earlier trigger started (debounce). */
  | { ok: true; runId: string; scheduledAtMs: number; fireAtMs: number; folded: boolean }
  | { ok: false; code: "job_not_found" | "job_not_active" };

export type BackfillResult =
  | { ok: true; created: number; skipped: number; runIds: string[] }
  | { ok: false; code: "job_not_found" | "job_not_active" | "too_many_instants" };

/** A job's waiting delivery made due now: the runs it concerns (see durable-objects/shard/runs/fire-now.ts). */
export type FireNowResult =
  | { ok: true; runIds: string[] }
  | { ok: false; code: "job_not_found" | "job_not_active" | "nothing_waiting" };

export type RetryResult =
  | { ok: true; runId: string; attempt: number }
  | { ok: false; code: "run_not_found" | "run_not_retryable" | "job_deleted" };

/**
 * An active job that missed an instant by more than its `alert_after`: its timer never fired, or
 * its run (`runId`) was not dispatched to a consumer in time.
 */
export interface OverdueJob {
  jobId: string;
  tenantId: string;
  /** The run left waiting for dispatch; null when the timer itself never fired. */
  runId: string | null;
  scheduledAtMs: number;
  overdueMs: number;
}

/** What a shard's watchdog pass found and repaired. */
export interface WatchdogReport {
  alarmAtMs: number | null;
  /** The shard had work due and no alarm: it was re-armed. */
  alarmRearmed: boolean;
  overdue: OverdueJob[];
  /** Terminal runs removed from the wheel's table (their history record stays). */
  pruned: number;
  /** History records removed past the retention. */
  historyPruned: number;
  /** Each tenant with runs waiting here for its share of the window (durable-objects/shard/runs/share-wait.ts). */
  shareWaits?: TenantShareWait[];
}

/** One tenant's runs due and waiting on a shard for its share of the dispatch window. */
export interface TenantShareWait {
  tenantId: string;
  waitingRuns: number;
  oldestDueMs: number;
}

/** One shard's tz database state (admin view): see durable-objects/shard/tzdata/timers-version.ts. */
export interface TzdataProgress {
  shard: number;
  /** The tz database version the shard's timers were computed with (null: not yet seen). */
  timersVersion: string | null;
  /** Set while timers are being re-derived for a new version; null when none is in progress. */
  rederivingTo: string | null;
  /** Jobs re-derived so far in the current (or last) re-derivation, and how many moved. */
  jobsDone: number;
  jobsChanged: number;
  jobsTotal: number;
  startedAtMs: number | null;
  finishedAtMs: number | null;
}

/** A long-running target's report, already authenticated by its run token. */
export interface RunCompletion {
  runId: string;
  /** The attempt the token was issued for. */
  fence: number;
  status: "succeeded" | "failed";
  /** JSON text, at most 4 KB; null when none was sent. */
  resultJson: string | null;
  error: string | null;
  retryable: boolean;
}

/**
 * Why a shard refused a run callback. `attempt_superseded`: the token's attempt is no longer the
 * one running (it finished, its lease expired, or a newer attempt took over).
 */
export type RunCallbackRefusal = "run_not_found" | "attempt_superseded";

export type CompleteRunResult =
  | { ok: true; runId: string; attempt: number; state: "SUCCEEDED" | "RETRYING" | "DEAD_LETTERED" }
  | { ok: false; runId: string; code: RunCallbackRefusal; state?: string };

export type HeartbeatResult =
  | { ok: true; runId: string; attempt: number; leaseExpiresAtMs: number }
  | { ok: false; runId: string; code: RunCallbackRefusal; state?: string };
