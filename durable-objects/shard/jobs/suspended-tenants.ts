// Which tenants are suspended on this shard, as the claims and the suspension itself read it (the
// suspending and unsuspending: ../job-changes/suspension.ts). A suspended tenant's runs are never
// claimed: a claim is where a call starts.
import type { ShardState } from "../state/shard-state";

/** The suspended tenants (one small table), read once per shard instance and kept in step. */
const suspendedByShard = new WeakMap<ShardState, Set<string>>();

export function suspendedTenants(state: ShardState): ReadonlySet<string> {
  let suspended = suspendedByShard.get(state);
  if (suspended === undefined) {
    suspended = new Set(
      state.sql
        .exec<{ tenant_id: string }>("SELECT tenant_id FROM suspended_tenants")
        .toArray()
        .map((row) => row.tenant_id),
    );
    suspendedByShard.set(state, suspended);
  }
  return suspended;
}
