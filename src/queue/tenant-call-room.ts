// Room for one tenant's calls in this isolate. A call handed off (dispatch-consumer.ts) still
// holds a connection, so the isolate hands off at most MAX_HANDED_OFF_CALLS; past that a slow
// call holds its batch, and every tenant's runs queued behind the batch wait. So no tenant may
// have more than TENANT_CALL_ROOM calls open here (started and not ended, handed off or not):
// a tenant whose calls are fast waits a moment for its own room; one whose calls hang finds its
// room still full after the wait, and its run goes back to its shard, deferred, to wait
// there as that tenant's backlog (in the shard's fair share), not in front of other tenants.

/**
 * A tenant's open calls per isolate: a batch's whole call concurrency (so one tenant's burst is
 * not slowed), half the hand-off room (so two tenants can hang at once and others still pass).
 */
export const TENANT_CALL_ROOM = 64;
/** How long a call waits for its tenant's room before it is deferred: past the hand-off delay. */
export const WAIT_FOR_ROOM_MS = 150;

export class TenantCallRoom {
  readonly #open = new Map<string, number>();
  readonly #waiters = new Set<() => void>();

  /** True once the tenant has room (taken for this call); false if none came within the wait. */
  async take(tenantId: string, nowMs = Date.now()): Promise<boolean> {
    const deadlineMs = nowMs + WAIT_FOR_ROOM_MS;
    while ((this.#open.get(tenantId) ?? 0) >= TENANT_CALL_ROOM) {
      const leftMs = deadlineMs - Date.now();
      if (leftMs <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, leftMs);
        this.#waiters.add(wake);
      });
    }
    this.#open.set(tenantId, (this.#open.get(tenantId) ?? 0) + 1);
    return true;
  }

  /** The tenant's call ended: its room is free again. */
  give(tenantId: string): void {
    const open = (this.#open.get(tenantId) ?? 1) - 1;
    if (open <= 0) this.#open.delete(tenantId);
    else this.#open.set(tenantId, open);
    for (const wake of [...this.#waiters]) wake();
  }
}
