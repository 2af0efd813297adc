// Resource shapes the console reads, as fixed by docs/API.md. Only the fields the pages use.

export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
}

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; problem: Problem };

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Me {
  role: "admin" | "tenant";
  tenant_id: string | null;
}

export interface Tenant {
  id: string;
  name: string;
}

export type Schedule =
  | { type: "cron"; expr: string; timezone: string; dst?: { gap: string; overlap: string } }
  | { type: "interval"; every: string | number; anchor?: string }
  | { type: "once"; at?: string; delay?: string | number };

/** HTTP (`url`) or a Cloudflare binding (`binding`; a service binding also has `path`). */
export interface JobTarget {
  type: "http" | "service" | "workflow" | "queue";
  url?: string;
  binding?: string;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface CalendarRule {
  type: string;
  [field: string]: unknown;
}

export interface Calendar {
  name: string;
  description: string;
  timezone: string;
  rules: CalendarRule[];
  revision: number;
  created_at: string;
  updated_at: string;
  /** Only on GET /v1/calendars/{name}. */
  jobs?: { id: string; name: string }[];
}

export interface Job {
  id: string;
  name: string;
  status: string;
  version: number;
  /** Exactly one of `schedule` and `schedules` is present. */
  schedule?: Schedule;
  schedules?: Schedule[];
  calendars?: string[];
  exclude?: { timezone: string; rules: CalendarRule[] } | null;
  target: JobTarget;
  retry: { max_attempts: number; backoff: Record<string, unknown>; [key: string]: unknown };
  misfire: { policy: string; [key: string]: unknown };
  overlap: string;
  timeout: string | number;
  start_at: string | null;
  end_at: string | null;
  max_runs: number | null;
  next_fire_times: string[];
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface RunEvent {
  state: string;
  at: string;
  reason?: string;
  attempt?: number;
}

export interface Run {
  id: string;
  job_id: string;
  kind: string;
  scheduled_at: string;
  state: string;
  attempt: number;
  max_attempts: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  /** lateness_ms split: the scheduler's own part, and what the job asked for (and which policy). */
  lateness?: { scheduler_ms: number; policy_ms: number; policy: string | null } | null;
  /** Why a run that has not gone out waits. */
  waiting?: { cause: string; reason: string; since: string | null } | null;
  duration_ms: number | null;
  next_attempt_at: string | null;
  events?: RunEvent[];
  /** Long-running runs: the target accepted the attempt, last heartbeat, reported result. */
  accepted_at?: string | null;
  last_heartbeat_at?: string | null;
  result?: unknown;
  created_at: string;
  updated_at: string;
}

export interface DeadLetter {
  id: string;
  job_id: string;
  run_id: string;
  attempt: number;
  scheduled_at: string;
  reason: string;
  last_error: string | null;
  target_status: number | null;
  payload: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  created_at: string;
  redriven_at: string | null;
}

export interface Alert {
  id: string;
  job_id: string | null;
  run_id: string | null;
  kind: string;
  message: string;
  details?: unknown;
  created_at: string;
  state: "open" | "acknowledged" | "resolved";
  delivery: "pending" | "delivered" | "failed" | "none";
  delivered_at: string | null;
  delivery_error: string | null;
  acknowledged_at: string | null;
  resolved_at: string | null;
  resolution: "job_fired_again" | "operator" | null;
}

export interface Stats {
  jobs_by_status: Record<string, number>;
  runs_by_state: Record<string, number>;
  per_minute: { minute: string; triggers: number; failures: number }[];
  lateness_ms: { p50: number | null; p90: number | null; p99: number | null; count: number };
  /** Runs due and waiting for the tenant's share of full dispatch windows (GET /v1/stats). */
  share_wait?: { throttled: boolean; waiting_runs: number; waiting_since: string | null; shards: number };
}

export { JOB_STATUSES, RUN_STATES } from "../core/run-state";

/** GET /v1/tzdata (admin): the runtime's tz database version and each shard's timers. */
export interface TzdataStatus {
  tzdata: string;
  up_to_date: boolean;
  shards: {
    shard: number;
    timers_version: string | null;
    rederiving_to: string | null;
    jobs_done: number;
    jobs_total: number;
  }[];
}
