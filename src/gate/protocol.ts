// The contract between shards (and the API) and a FlowGate Durable Object, one per flow-control
// key. Plain data only: these values cross the RPC boundary.
import type { FlowLimits } from "../core/load/flow-control";
import type { HostSignal, HostSignalEvent } from "../core/load/host-throttle";

export interface PermitRequest {
  runId: string;
  /** How long the parallelism permit is held if the holder never returns it. */
  leaseMs: number;
}

export interface AcquireRequest {
  /** The gate's own name (flowKeyGate / tenantGate): holders are woken with it when permits return. */
  gate: string;
  /** The key as the tenant wrote it (shown in the state); the gate's name scopes it to the tenant. */
  key: string;
  /** A job key's tenant: the gate records the key in the tenant's list on first use. Null: a tenant's own gate. */
  tenantId: string | null;
  /** The limits the asking job carries now: the latest request sets the gate's limits. */
  limits: FlowLimits;
  /**
   * Who holds the permits: a shard's number (its waiting runs count in the gate's wait list, and
   * it is woken when parallelism permits come back), or null for a caller that is not a shard.
   */
  holder: number | null;
  runs: PermitRequest[];
  /**
   * The holder's other runs already waiting at this gate, not asked for in this request: the
   * holder's entry in the wait list is these plus the runs this request is refused. Without it a
   * second ask from the same shard replaced the first one's count (two runs, one waiting).
   */
  alsoWaiting?: number;
  /**
   * A destination host's gate (hostGate): the gate's own adaptive limit applies, not `limits`,
   * and a host no longer throttled grants every run and answers `hostThrottled: false`.
   */
  host?: boolean;
}

export interface AcquireResult {
  /** The run ids that may start now, in the order asked. */
  granted: string[];
  /** When the refused runs should ask again; null when every run was granted. */
  retryAtMs: number | null;
  /** A host gate's answer: whether the host is still throttled, and its limit now. */
  hostThrottled?: boolean;
  hostLimit?: number;
  hostPausedUntilMs?: number | null;
}

/** What a shard's batch of outcomes said about one destination host of one tenant. */
export interface HostReportRequest {
  /** The gate's own name (hostGate), for waking holders and for the index of throttled hosts. */
  gate: string;
  tenantId: string;
  origin: string;
  signals: HostSignalEvent[];
  /** 2xx answers of the host in the batch. */
  successes: number;
  /** Runs whose call ended: their permits (if they hold one) go back. */
  endedRunIds: string[];
}

/** A host's throttle as the gate holds it. */
export interface HostThrottleState {
  origin: string;
  limit: number;
  inFlight: number;
  pausedUntilMs: number | null;
  lastSignal: HostSignal;
  lastSignalAtMs: number;
  /** Runs that asked and were told to wait, as their shards last reported. */
  waiting: number;
}

/** After a report: whether the host is still throttled (null state: it is not). */
export interface HostReportResult {
  throttle: HostThrottleState | null;
}

export interface ReleaseRequest {
  runIds: string[];
  /**
   * Also give back the rate permits: the runs were granted here but never started (another gate
   * refused them), so the window should not count them.
   */
  returnRate: boolean;
}

/** Extends held parallelism permits (a long-running call is still working); unknown runs are ignored. */
export interface RenewRequest {
  runs: PermitRequest[];
}

/** A key's state as the API and console show it. */
export interface GateState {
  key: string | null;
  /** Runs that asked and were told to wait, as their shards last reported. */
  waiting: number;
  /** Parallelism permits held (calls in flight). */
  inFlight: number;
  /** Grants in the current rate window (nowMs - periodMs, nowMs]. */
  rateCount: number;
  /** When the current rate window began (the oldest grant in it), else now. */
  ratePeriodStartMs: number;
  limits: FlowLimits | null;
  updatedAtMs: number | null;
  /** The key is paused: no run gets a new permit until it is resumed. */
  paused?: boolean;
}
