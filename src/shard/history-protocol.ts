// Run history as the shards serve it (durable-objects/shard/records/page-records.ts): plain data that
// crosses the RPC boundary. Every run's history lives in the shard that owns the run.

import type { HoldCause } from "../core/load/run-waits";
import type { RunState } from "../core/runs/run-state";

/** One run as its history records it: the columns the API's run resource is built from. */
export interface HistoryRecord {
  id: string;
  job_id: string;
  tenant_id: string;
  shard: number;
  kind: string;
  scheduled_at_ms: number;
  idempotency_key: string;
  state: string;
  attempt: number;
  max_attempts: number;
  fence: number | null;
  job_version: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  next_attempt_at_ms: number | null;
  events_json: string;
  created_at_ms: number;
  updated_at_ms: number;
  accepted_at_ms: number | null;
  heartbeat_at_ms: number | null;
  result_json: string | null;
  /** How long past its fire time its job's overlap buffer or a flow gate held it, and which. */
  held_ms: number | null;
  held_by: string | null;
  /** Debounced triggers folded into this run beyond the one that started it (shard schema v20). */
  triggers_folded: number;
}

/** Rows strictly after `(ms, id)` in a list ordered by that time DESC, then id DESC. */
export interface HistoryCursor {
  ms: number;
  id: string;
}

/** A tenant's runs on one shard, newest created first (one shard's part of GET /v1/runs). */
export interface TenantHistoryQuery {
  tenantId: string;
  state?: RunState;
  jobId?: string;
  cursor?: HistoryCursor;
  limit: number;
}

/** One job's runs, newest scheduled instant first. */
export interface JobHistoryQuery {
  tenantId: string;
  jobId: string;
  cursor?: HistoryCursor;
  limit: number;
}

/** One shard's part of the stats: `tenantId` null means every tenant (admin). */
export interface HistoryStatsQuery {
  tenantId: string | null;
  /** Per-minute counts and lateness samples from runs created at or after this instant. */
  sinceMs: number;
  /** The most recent lateness samples to return. */
  latenessLimit: number;
}

export interface LatenessSample {
  createdAtMs: number;
  latenessMs: number;
  /** Late on purpose (backfill, catch-up, a recorded misfire), not the scheduler's own lateness. */
  deliberate: boolean;
  /** The lateness split (src/core/load/run-waits.ts): the scheduler's own, and what the job asked for. */
  schedulerMs: number;
  policyMs: number;
  policy: HoldCause | null;
}

export interface HistoryStats {
  byState: { state: string; n: number }[];
  minutes: { minuteMs: number; triggers: number; failures: number }[];
  /** Newest first. */
  lateness: LatenessSample[];
  /** Runs due and waiting for their tenant's share of the dispatch window (absent: an older shard). */
  shareWait?: ShareWait;
}

/** Runs due and waiting in a shard for room in its dispatch window. */
export interface ShareWait {
  waitingRuns: number;
  /** The oldest waiting run's due instant; null when none waits. */
  oldestDueMs: number | null;
  /** Shards with a waiting run (in a sum over shards; 1 or 0 from one shard). */
  shards?: number;
}

/** Did the job fire (a dispatched run of its schedule) at or after `sinceMs`? (missed_run alerts) */
export interface FiredSinceQuery {
  jobId: string;
  sinceMs: number;
  /** The instant of the run the alert names (a run still waiting then): only its claim counts. */
  namedRunAtMs?: number;
}
