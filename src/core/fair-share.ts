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
