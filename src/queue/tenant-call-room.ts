// Room for one tenant's calls in this isolate. A call handed off (dispatch-consumer.ts) still
// holds a connection, so the isolate hands off at most MAX_HANDED_OFF_CALLS; past that a slow
// call holds its batch, and every tenant's runs queued behind the batch wait. So no tenant may
// have more than TENANT_CALL_ROOM calls open here (started and not ended, handed off or not). A
// call whose tenant's room is full waits for it, as it would for the batch's call slots; only
// when at least half of that room is held by hanging calls (handed off, open past
// HANGING_AFTER_MS) and none ends within WAIT_FOR_ROOM_MS is the run deferred: back to its shard, to wait there as that tenant's backlog
// (in the shard's fair share), not in front of other tenants. A fast tenant's flood only waits:
// deferring it (tried, with any full room) turned a loaded machine's 280 calls/s into 15.

/**
 * A tenant's open calls per isolate: a batch's whole call concurrency (so one tenant's burst is
 * not slowed), a quarter of the hand-off room (so a few tenants can hang at once and others still pass).
 */
export const TENANT_CALL_ROOM = 64;
/** How long a call waits for a room held by hanging calls before it is deferred. */
export const WAIT_FOR_ROOM_MS = 150;
/**
 * A handed-off call open this long counts as hanging. Not the hand-off delay itself: on a loaded
 * machine a fast target's calls pass 100 ms too, and deferring them churns the flood.
 */
export const HANGING_AFTER_MS = 1_000;
/** A waiting call looks again at least this often (the open calls age into hanging ones). */
const RECHECK_MS = 100;

interface HandedOff {
  startedAtMs: number;
}

export class TenantCallRoom {
  readonly #open = new Map<string, number>();
  readonly #handedOff = new Map<string, Set<HandedOff>>();
  readonly #waiters = new Set<() => void>();

  /** True once the tenant has room (taken for this call); false: defer the call. */
  async take(tenantId: string): Promise<boolean> {
    let slowSinceMs: number | null = null;
    while ((this.#open.get(tenantId) ?? 0) >= TENANT_CALL_ROOM) {
      const slow = this.#hanging(tenantId) >= TENANT_CALL_ROOM / 2;
      if (!slow) slowSinceMs = null;
      else slowSinceMs ??= Date.now();
      const leftMs = slowSinceMs === null ? WAIT_FOR_ROOM_MS : slowSinceMs + WAIT_FOR_ROOM_MS - Date.now();
      if (leftMs <= 0) return false;
      await this.#nextChange(Math.min(leftMs, RECHECK_MS));
    }
    this.#open.set(tenantId, (this.#open.get(tenantId) ?? 0) + 1);
    return true;
  }

  /** One of the tenant's calls, started at `startedAtMs`, was handed off: it still holds its room. */
  handedOff(tenantId: string, startedAtMs: number): HandedOff {
    const entry = { startedAtMs };
    const entries = this.#handedOff.get(tenantId) ?? new Set<HandedOff>();
    entries.add(entry);
    this.#handedOff.set(tenantId, entries);
    return entry;
  }

  /** The tenant's call ended (`handedOff`: the entry its hand-off returned): its room is free again. */
  give(tenantId: string, handedOff?: HandedOff): void {
    decrement(this.#open, tenantId);
    const entries = this.#handedOff.get(tenantId);
    if (handedOff !== undefined && entries !== undefined) {
      entries.delete(handedOff);
      if (entries.size === 0) this.#handedOff.delete(tenantId);
    }
    this.#wake();
  }

  #hanging(tenantId: string): number {
    const nowMs = Date.now();
    let hanging = 0;
    for (const entry of this.#handedOff.get(tenantId) ?? []) {
      if (nowMs - entry.startedAtMs >= HANGING_AFTER_MS) hanging += 1;
    }
    return hanging;
  }

  #nextChange(atMostMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, atMostMs);
      this.#waiters.add(wake);
    });
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
