// The shard's live runs in memory, with the indexes the wheel reads on every pass: due runs in
// time order (all tenants, and per tenant per priority), runs in the dispatch window per tenant,
// runs waiting at a flow gate, dead letters to send, slow calls. Nothing here is durable by
// itself: ./shard-state.ts journals every run it changes (../store/journal.ts).

import { LazyHeap } from "../../../src/core/common/min-heap";
import { JOB_PRIORITY_HIGHEST, JOB_PRIORITY_LOWEST } from "../../../src/core/jobs/job-spec";
import { inDispatchWindow, type Run } from "../records/run";

interface DueEntry {
  run: Run;
  dueAtMs: number;
  priority: number;
}

/** What a run's place in the indexes depends on, read before a change and compared after. */
export interface RunIndexState {
  dueAtMs: number | null;
  priority: number;
  inWindow: boolean;
  gate: string | null;
  dlq: boolean;
  slow: boolean;
}

const PRIORITY_COUNT = JOB_PRIORITY_LOWEST - JOB_PRIORITY_HIGHEST + 1;

function priorityIndex(priority: number): number {
  return Math.min(PRIORITY_COUNT - 1, Math.max(0, priority - JOB_PRIORITY_HIGHEST));
}

export class RunBook {
  private readonly byId = new Map<string, Run>();
  private readonly byJob = new Map<string, Set<Run>>();
  private readonly dueAll: LazyHeap<DueEntry>;
  private readonly dueByTenant = new Map<string, LazyHeap<DueEntry>[]>();
  private readonly windowByTenant = new Map<string, number>();
  private readonly atGate = new Map<string, Set<Run>>();
  private readonly deadLetters = new Set<Run>();
  private readonly slowCalls = new Set<Run>();
  /**
   * Each run's latest due entry: only it is current. A due time that comes back to a value an
   * older entry still holds (a lease lapsing at the very millisecond its retry is due again)
   * would otherwise make both current, and the pass would read (and send) the run twice.
   */
  private readonly currentDue = new Map<string, DueEntry>();
  private readonly isCurrent = (entry: DueEntry) =>
    entry.run.due_at_ms === entry.dueAtMs && this.currentDue.get(entry.run.run_id) === entry;

  constructor() {
    this.dueAll = new LazyHeap<DueEntry>((a, b) => a.dueAtMs < b.dueAtMs, this.isCurrent);
  }

  get size(): number {
    return this.byId.size;
  }

  get(runId: string): Run | undefined {
    return this.byId.get(runId);
  }

  has(runId: string): boolean {
    return this.byId.has(runId);
  }

  all(): IterableIterator<Run> {
    return this.byId.values();
  }

  /** The job's live runs (a handful: those not yet settled). */
  ofJob(jobId: string): Run[] {
    const runs = this.byJob.get(jobId);
    return runs === undefined ? [] : [...runs];
  }

  add(run: Run): void {
    const existing = this.byId.get(run.run_id);
    if (existing !== undefined) this.remove(existing);
    this.byId.set(run.run_id, run);
    let ofJob = this.byJob.get(run.job_id);
    if (ofJob === undefined) {
      ofJob = new Set();
      this.byJob.set(run.job_id, ofJob);
    }
    ofJob.add(run);
    this.index(run, null);
  }

  remove(run: Run): void {
    if (this.byId.get(run.run_id) !== run) return;
    const before = indexStateOf(run);
    this.byId.delete(run.run_id);
    this.currentDue.delete(run.run_id);
    const ofJob = this.byJob.get(run.job_id);
    ofJob?.delete(run);
    if (ofJob !== undefined && ofJob.size === 0) this.byJob.delete(run.job_id);
    this.unindex(run, before);
  }

  /** Re-files a run after a change (`before`: its index state read before the change). */
  changed(run: Run, before: RunIndexState): void {
    if (this.byId.get(run.run_id) !== run) return;
    this.unindex(run, before);
    this.index(run, before);
  }

  /** Live runs in the dispatch window, per tenant (sent and unreported, or running). */
  windowCounts(): ReadonlyMap<string, number> {
    return this.windowByTenant;
  }

  windowTotal(): number {
    let total = 0;
    for (const count of this.windowByTenant.values()) total += count;
    return total;
  }

  /** The earliest due time of any run (null: none has one). */
  earliestDueMs(): number | null {
    return this.dueAll.peek()?.dueAtMs ?? null;
  }

  /** Up to `limit` runs due at `nowMs`, oldest first. */
  oldestDue(nowMs: number, limit: number): Run[] {
    return this.dueAll.top(limit, (entry) => entry.dueAtMs <= nowMs).map((entry) => entry.run);
  }

  /** Tenants with a run due at `nowMs`, each with its earliest due time. */
  tenantsWithWorkDue(nowMs: number): { tenantId: string; firstDueMs: number }[] {
    const tenants: { tenantId: string; firstDueMs: number }[] = [];
    for (const [tenantId, heaps] of this.dueByTenant) {
      let first: number | null = null;
      for (const heap of heaps) {
        const top = heap.peek()?.dueAtMs;
        if (top !== undefined && (first === null || top < first)) first = top;
      }
      if (first !== null && first <= nowMs) tenants.push({ tenantId, firstDueMs: first });
    }
    return tenants.sort((a, b) => a.firstDueMs - b.firstDueMs);
  }

  /** Up to `limit` of the tenant's runs due at `nowMs`, by priority (highest first), then oldest. */
  tenantDue(tenantId: string, nowMs: number, limit: number): Run[] {
    const heaps = this.dueByTenant.get(tenantId);
    if (heaps === undefined) return [];
    const runs: Run[] = [];
    for (const heap of heaps) {
      if (runs.length >= limit) break;
      for (const entry of heap.top(limit - runs.length, (candidate) => candidate.dueAtMs <= nowMs))
        runs.push(entry.run);
    }
    return runs;
  }

  /**
   * Whether the tenant's due runs (at any time) are filed under more than one priority; stale
   * entries count, so a false is sure: the tenant's due order is then its runs' due order.
   */
  hasSeveralDuePriorities(tenantId: string): boolean {
    const heaps = this.dueByTenant.get(tenantId);
    return heaps !== undefined && heaps.filter((heap) => heap.rawSize > 0).length > 1;
  }

  /** Runs with a due time (at any time), of one tenant or all: the share-wait and watchdog reads. */
  dueRuns(tenantId?: string): Run[] {
    if (tenantId === undefined) return this.dueAll.validEntries().map((entry) => entry.run);
    const heaps = this.dueByTenant.get(tenantId) ?? [];
    return heaps.flatMap((heap) => heap.validEntries().map((entry) => entry.run));
  }

  /** Runs waiting at a flow gate (SCHEDULED, noting the gate). */
  waitingAt(gate: string): Run[] {
    const runs = this.atGate.get(gate);
    return runs === undefined ? [] : [...runs];
  }

  /** Dead letters still to send. */
  pendingDeadLetters(): Run[] {
    return [...this.deadLetters];
  }

  /** Calls the consumer reported slow that are still running. */
  slowRunning(): Run[] {
    return [...this.slowCalls];
  }

  private index(run: Run, before: RunIndexState | null): void {
    const state = indexStateOf(run);
    if (state.dueAtMs !== null && (before?.dueAtMs !== state.dueAtMs || before.priority !== state.priority)) {
      const entry = { run, dueAtMs: state.dueAtMs, priority: state.priority };
      this.currentDue.set(run.run_id, entry);
      this.dueAll.push(entry);
      this.tenantHeap(run.tenant_id, state.priority).push(entry);
    } else if (state.dueAtMs === null) {
      this.currentDue.delete(run.run_id);
    }
    if (state.inWindow) this.countWindow(run.tenant_id, 1);
    if (state.gate !== null) {
      let set = this.atGate.get(state.gate);
      if (set === undefined) {
        set = new Set();
        this.atGate.set(state.gate, set);
      }
      set.add(run);
    }
    if (state.dlq) this.deadLetters.add(run);
    if (state.slow) this.slowCalls.add(run);
  }

  /** Undoes what `index` did for `before` (due entries go stale by themselves). */
  private unindex(run: Run, before: RunIndexState): void {
    if (before.inWindow) this.countWindow(run.tenant_id, -1);
    if (before.gate !== null) {
      const set = this.atGate.get(before.gate);
      set?.delete(run);
      if (set !== undefined && set.size === 0) this.atGate.delete(before.gate);
    }
    if (before.dlq) this.deadLetters.delete(run);
    if (before.slow) this.slowCalls.delete(run);
    if (before.dueAtMs !== null) this.forgetEmptyTenant(run.tenant_id);
  }

  private tenantHeap(tenantId: string, priority: number): LazyHeap<DueEntry> {
    let heaps = this.dueByTenant.get(tenantId);
    if (heaps === undefined) {
      heaps = Array.from(
        { length: PRIORITY_COUNT },
        () =>
          new LazyHeap<DueEntry>(
            (a, b) => a.dueAtMs < b.dueAtMs,
            (entry) => this.isCurrent(entry) && entry.run.priority === entry.priority,
          ),
      );
      this.dueByTenant.set(tenantId, heaps);
    }
    return heaps[priorityIndex(priority)] as LazyHeap<DueEntry>;
  }

  /** A tenant whose heaps hold no current entry leaves the map (the tenant walk stays short). */
  private forgetEmptyTenant(tenantId: string): void {
    const heaps = this.dueByTenant.get(tenantId);
    if (heaps?.every((heap) => heap.peek() === undefined)) {
      this.dueByTenant.delete(tenantId);
    }
  }

  private countWindow(tenantId: string, delta: number): void {
    const count = (this.windowByTenant.get(tenantId) ?? 0) + delta;
    if (count <= 0) this.windowByTenant.delete(tenantId);
    else this.windowByTenant.set(tenantId, count);
  }
}

export function indexStateOf(run: Run): RunIndexState {
  return {
    dueAtMs: run.due_at_ms,
    priority: run.priority,
    inWindow: inDispatchWindow(run),
    gate: run.flow_gate !== null && run.state === "SCHEDULED" ? run.flow_gate : null,
    dlq: run.dlq_pending === 1,
    slow: run.slow_since_ms !== null && run.state === "RUNNING",
  };
}
