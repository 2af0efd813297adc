// The aggregates behind GET /v1/stats, folded in memory as runs settle (they were a row upsert per
// run): settled runs per (tenant, state), runs and failures per minute, and the latest lateness
// samples. Checkpointed with the rest of the shard's state; each journal entry carries what its
// settled runs added (./shard-state.ts), so a restart rebuilds them exactly.
import { latenessSplit } from "../../../src/core/load/run-waits";
import type { LatenessSample } from "../../../src/shard/history-protocol";
import type { Run } from "../records/run";

/** What one settled run adds to the aggregates: its journal entry carries exactly this. */
export type SettledStats = [
  tenantId: string,
  state: string,
  createdAtMs: number,
  failed: 0 | 1,
  sample: LatenessSample | null,
];

/** The stats read the last hour of per-minute aggregates; two hours are kept for the edges. */
const MINUTES_KEPT_MS = 2 * 3_600_000;
/** Lateness samples kept per tenant (the stats read the newest few hundred). */
const SAMPLES_KEPT = 2_000;

interface StatsSnapshot {
  counts: [string, [string, number][]][];
  minutes: [string, [number, number, number][]][];
  samples: [string, LatenessSample[]][];
}

/** A fire the shard recorded as a misfire (its first reason says so). */
function isMisfire(run: Run): boolean {
  return run.events[0]?.reason.startsWith("misfire") ?? false;
}

/** A run's lateness as the stats sample it (null: it never reached a consumer). */
export function latenessSampleOf(run: Run): LatenessSample | null {
  if (run.lateness_ms === null) return null;
  const misfire = isMisfire(run);
  const split = latenessSplit({
    latenessMs: run.lateness_ms,
    kind: run.kind,
    misfire,
    heldMs: run.held_ms,
    heldBy: run.held_by,
    createdAtMs: run.created_at_ms,
    scheduledAtMs: run.scheduled_at_ms,
  });
  return {
    createdAtMs: run.created_at_ms,
    latenessMs: run.lateness_ms,
    deliberate: run.kind === "backfill" || run.kind === "catch_up" || misfire,
    ...split,
  };
}

export function settledStatsOf(run: Run): SettledStats {
  const failed = run.state === "DEAD_LETTERED" || run.events.some((event) => event.state === "FAILED");
  return [run.tenant_id, run.state, run.created_at_ms, failed ? 1 : 0, latenessSampleOf(run)];
}

export class StatsBook {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly minutes = new Map<string, Map<number, [number, number]>>();
  private readonly samples = new Map<string, LatenessSample[]>();

  add([tenantId, state, createdAtMs, failed, sample]: SettledStats): void {
    this.count(tenantId, state, 1);
    this.addMinute(tenantId, Math.floor(createdAtMs / 60_000) * 60_000, 1, failed);
    if (sample !== null) {
      let list = this.samples.get(tenantId);
      if (list === undefined) {
        list = [];
        this.samples.set(tenantId, list);
      }
      list.push(sample);
      if (list.length > SAMPLES_KEPT * 1.25) list.splice(0, list.length - SAMPLES_KEPT);
    }
  }

  addMinute(tenantId: string, minuteMs: number, triggers: number, failures: number): void {
    let minutes = this.minutes.get(tenantId);
    if (minutes === undefined) {
      minutes = new Map();
      this.minutes.set(tenantId, minutes);
    }
    const minute = minutes.get(minuteMs) ?? [0, 0];
    minute[0] += triggers;
    minute[1] += failures;
    minutes.set(minuteMs, minute);
  }

  /** Settled runs that left the history (pruned), or that an operator revived. */
  count(tenantId: string, state: string, delta: number): void {
    let states = this.counts.get(tenantId);
    if (states === undefined) {
      states = new Map();
      this.counts.set(tenantId, states);
    }
    const n = (states.get(state) ?? 0) + delta;
    if (n <= 0) states.delete(state);
    else states.set(state, n);
    if (states.size === 0) this.counts.delete(tenantId);
  }

  /** Settled runs per state, of one tenant or (null) all. */
  byState(tenantId: string | null): Map<string, number> {
    const total = new Map<string, number>();
    for (const [tenant, states] of this.counts) {
      if (tenantId !== null && tenant !== tenantId) continue;
      for (const [state, n] of states) total.set(state, (total.get(state) ?? 0) + n);
    }
    return total;
  }

  /** Runs and failures per minute since `sinceMs`, of one tenant or all. */
  minutesSince(
    tenantId: string | null,
    sinceMs: number,
  ): { minuteMs: number; triggers: number; failures: number }[] {
    const total = new Map<number, [number, number]>();
    for (const [tenant, minutes] of this.minutes) {
      if (tenantId !== null && tenant !== tenantId) continue;
      for (const [minuteMs, [triggers, failures]] of minutes) {
        if (minuteMs < sinceMs) continue;
        const sum = total.get(minuteMs) ?? [0, 0];
        sum[0] += triggers;
        sum[1] += failures;
        total.set(minuteMs, sum);
      }
    }
    return [...total].map(([minuteMs, [triggers, failures]]) => ({ minuteMs, triggers, failures }));
  }

  /** The newest lateness samples since `sinceMs`, newest first. */
  latenessSince(tenantId: string | null, sinceMs: number, limit: number): LatenessSample[] {
    const lists = tenantId === null ? [...this.samples.values()] : [this.samples.get(tenantId) ?? []];
    return lists
      .flat()
      .filter((sample) => sample.createdAtMs >= sinceMs)
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, limit);
  }

  /** Minutes older than the stats read are dropped (at each checkpoint). */
  forgetOldMinutes(nowMs: number): void {
    for (const [tenant, minutes] of this.minutes) {
      for (const minuteMs of minutes.keys()) if (minuteMs < nowMs - MINUTES_KEPT_MS) minutes.delete(minuteMs);
      if (minutes.size === 0) this.minutes.delete(tenant);
    }
  }

  snapshot(): StatsSnapshot {
    return {
      counts: [...this.counts].map(([tenant, states]) => [tenant, [...states]]),
      minutes: [...this.minutes].map(([tenant, minutes]) => [
        tenant,
        [...minutes].map(([minuteMs, [triggers, failures]]) => [minuteMs, triggers, failures]),
      ]),
      samples: [...this.samples].map(([tenant, list]) => [tenant, list.slice(-SAMPLES_KEPT)]),
    };
  }

  restore(snapshot: StatsSnapshot): void {
    for (const [tenant, states] of snapshot.counts) this.counts.set(tenant, new Map(states));
    for (const [tenant, minutes] of snapshot.minutes) {
      this.minutes.set(
        tenant,
        new Map(minutes.map(([minuteMs, triggers, failures]) => [minuteMs, [triggers, failures]])),
      );
    }
    for (const [tenant, list] of snapshot.samples) this.samples.set(tenant, list);
  }
}
