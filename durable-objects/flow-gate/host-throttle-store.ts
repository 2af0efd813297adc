// A host gate's throttle row (gate schema v3): read and written only by its FlowGate. The rule
// that changes it is pure (src/core/load/host-throttle.ts); this only maps it to its row.
import type { HostSignal, HostThrottle } from "../../src/core/load/host-throttle";

type HostThrottleRow = {
  tenant_id: string;
  origin: string;
  limit_calls: number;
  paused_until_ms: number | null;
  last_signal: HostSignal;
  last_signal_at_ms: number;
  last_cut_at_ms: number;
};

export interface StoredHostThrottle {
  tenantId: string;
  origin: string;
  throttle: HostThrottle;
}

export function readHostThrottle(sql: SqlStorage): StoredHostThrottle | null {
  const row = sql.exec<HostThrottleRow>("SELECT * FROM host_throttle WHERE id = 1").toArray()[0];
  if (row === undefined) return null;
  return {
    tenantId: row.tenant_id,
    origin: row.origin,
    throttle: {
      limit: row.limit_calls,
      pausedUntilMs: row.paused_until_ms,
      lastSignal: row.last_signal,
      lastSignalAtMs: row.last_signal_at_ms,
      lastCutAtMs: row.last_cut_at_ms,
    },
  };
}

/** Writes the throttle, or removes it (null: the host is no longer throttled). */
export function writeHostThrottle(
  sql: SqlStorage,
  tenantId: string,
  origin: string,
  throttle: HostThrottle | null,
) {
  if (throttle === null) {
    sql.exec("DELETE FROM host_throttle");
    return;
  }
  sql.exec(
    `INSERT OR REPLACE INTO host_throttle
       (id, tenant_id, origin, limit_calls, paused_until_ms, last_signal, last_signal_at_ms, last_cut_at_ms)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?)`,
    tenantId,
    origin,
    throttle.limit,
    throttle.pausedUntilMs,
    throttle.lastSignal,
    throttle.lastSignalAtMs,
    throttle.lastCutAtMs,
  );
}
