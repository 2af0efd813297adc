// Fair share between tenants: when a shard can send fewer runs than are due, it takes them round
// robin across the tenants with work due, so a tenant with one run due is never queued behind
// another's 80,000.

/**
 * Interleaves per-tenant queues (each already in its own order): one item of each in turn, the
 * queues taken in the order given, until every queue is empty.
 *
 * @example roundRobin([["a1", "a2", "a3"], ["b1"], ["c1", "c2"]]) // ["a1", "b1", "c1", "a2", "c2", "a3"]
 */
export function roundRobin<T>(queues: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...queues.map((queue) => queue.length));
  for (let depth = 0; depth < longest; depth += 1) {
    for (const queue of queues) {
      const item = queue[depth];
      if (item !== undefined) out.push(item);
    }
  }
  return out;
}

/**
 * Items grouped by `tenantOf` (first-seen order, which for items sorted by due time puts the
 * tenant waiting longest first) and interleaved round robin.
 *
 * @example fairOrder(["a1", "a2", "b1"], (item) => item[0]) // ["a1", "b1", "a2"]
 */
export function fairOrder<T>(items: readonly T[], tenantOf: (item: T) => string): T[] {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const tenant = tenantOf(item);
    const queue = queues.get(tenant);
    if (queue) queue.push(item);
    else queues.set(tenant, [item]);
  }
  return queues.size <= 1 ? [...items] : roundRobin([...queues.values()]);
}

/**
 * How many rows to read per tenant so that `limit` rows cover every tenant with work due: an
 * equal share, at least one.
 *
 * @example sharePerTenant(600, 4) === 150
 */
export function sharePerTenant(limit: number, tenants: number): number {
  return tenants <= 0 ? limit : Math.max(1, Math.ceil(limit / tenants));
}

/** One tenant's position at a shard's dispatch window. */
export interface TenantDemand {
  tenantId: string;
  /** Runs of the tenant handed to the execution path and not yet reported. */
  inFlight: number;
  /** Runs of the tenant due now that could be sent. */
  due: number;
  /** The tenant's weight (default 1): its share of the window is proportional to it. */
  weight: number;
}

/**
 * How many runs each tenant may send now into a window of `window` slots, in two passes:
 *  1. every tenant with work due or in flight has a share of the window proportional to its
 *     weight (at least one slot); a tenant under its share may fill it even when the window is
 *     full, so a tenant whose runs hang (or flood) holds only its own share and another tenant's
 *     run is sent in the next pass (the overshoot is bounded: at most the window again);
 *  2. what the window still has free goes to the tenants with work left, in proportion to their
 *     weights (work conserving: a tenant alone may use the whole window).
 *
 * @example windowAllowances(10, [{ tenantId: "a", inFlight: 10, due: 90, weight: 1 }, { tenantId: "b", inFlight: 0, due: 1, weight: 1 }])
 * // -> Map { "a" => 0, "b" => 1 }
 */
export function windowAllowances(window: number, tenants: readonly TenantDemand[]): Map<string, number> {
  const active = tenants.filter((tenant) => tenant.due > 0 || tenant.inFlight > 0);
  const totalWeight = active.reduce((sum, tenant) => sum + tenant.weight, 0);
  const allowed = new Map<string, number>();
  let inUse = 0;
  for (const tenant of active) {
    const share = Math.max(1, Math.floor((window * tenant.weight) / totalWeight));
    const guaranteed = Math.max(0, Math.min(tenant.due, share - tenant.inFlight));
    allowed.set(tenant.tenantId, guaranteed);
    inUse += tenant.inFlight + guaranteed;
  }
  let free = window - inUse;
  let wanting = active.filter((tenant) => (allowed.get(tenant.tenantId) ?? 0) < tenant.due);
  while (free > 0 && wanting.length > 0) {
    const weight = wanting.reduce((sum, tenant) => sum + tenant.weight, 0);
    const round = free;
    for (const tenant of wanting) {
      const had = allowed.get(tenant.tenantId) ?? 0;
      const more = Math.min(
        tenant.due - had,
        free,
        Math.max(1, Math.floor((round * tenant.weight) / weight)),
      );
      allowed.set(tenant.tenantId, had + more);
      free -= more;
    }
    wanting = wanting.filter((tenant) => (allowed.get(tenant.tenantId) ?? 0) < tenant.due);
  }
  return allowed;
}

/**
 * What is left of each tenant's guaranteed share of the window (pass 1 of windowAllowances) once
 * its runs in flight and this pass's sends are counted, for any tenant: one with nothing due or in
 * flight here has the share it would have if it joined. Runs sent ahead of their instant use it, so
 * a tenant under its share sends its next instants ahead while another fills the window, as alone.
 *
 * @example shareLeft(10, [{ tenantId: "a", inFlight: 10, due: 90, weight: 1 }], new Map(), () => 1)("b") === 5
 */
export function shareLeft(
  window: number,
  tenants: readonly TenantDemand[],
  sending: ReadonlyMap<string, number>,
  weightOf: (tenantId: string) => number,
): (tenantId: string) => number {
  const active = new Map(
    tenants
      .filter((tenant) => tenant.due > 0 || tenant.inFlight > 0)
      .map((tenant) => [tenant.tenantId, tenant]),
  );
  let totalWeight = 0;
  for (const tenant of active.values()) totalWeight += tenant.weight;
  return (tenantId) => {
    const tenant = active.get(tenantId);
    const weight = tenant?.weight ?? weightOf(tenantId);
    const share = Math.max(1, Math.floor((window * weight) / (totalWeight + (tenant ? 0 : weight))));
    return Math.max(0, share - (tenant?.inFlight ?? 0) - (sending.get(tenantId) ?? 0));
  };
}
