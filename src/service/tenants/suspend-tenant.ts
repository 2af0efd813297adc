// Suspend and unsuspend a tenant: the way to stop a runaway tenant at once. D1 records it (what
// would start work is refused with 409 `tenant_suspended`: ../suspension.ts) and every shard is
// told before the answer, so a success means no call of the tenant starts any more (the shards'
// claims refuse them).
import { EdgecronError } from "../../core/common/errors";
import { findTenant, setTenantSuspendedAt, type TenantRow } from "../../db/tenants";
import { setTenantSuspendedOnShards } from "../../shard/client";

/** Pauses before each round of shard calls: an overloaded shard refuses one now and then. */
const SHARD_RETRY_DELAYS_MS = [0, 50, 200];

export function tenantNotFound(id?: string): EdgecronError {
  return new EdgecronError("tenant_not_found", id === undefined ? "No such tenant" : `No tenant ${id}`);
}

/** The tenant as every shard now holds it; 503 when a shard could not be told (repeat to finish). */
export async function setTenantSuspended(
  env: Env,
  tenantId: string,
  suspended: boolean,
  nowMs: number,
): Promise<TenantRow> {
  if ((await findTenant(env.DB, tenantId)) === null) throw tenantNotFound(tenantId);
  await setTenantSuspendedAt(env.DB, tenantId, suspended ? nowMs : null);
  await tellEveryShard(env, tenantId, suspended);
  const tenant = await findTenant(env.DB, tenantId);
  if (tenant === null) throw tenantNotFound(tenantId);
  return tenant;
}

/** Every shard, retried at once; any still unreachable: 503 (repeating the request finishes it). */
async function tellEveryShard(env: Env, tenantId: string, suspended: boolean): Promise<void> {
  let shards: number[] | undefined;
  for (const delayMs of SHARD_RETRY_DELAYS_MS) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    shards = await setTenantSuspendedOnShards(env, tenantId, suspended, shards);
    if (shards.length === 0) return;
  }
  throw new EdgecronError(
    "shard_unavailable",
    `${shards?.length} shard(s) could not be told; the tenant is ${suspended ? "suspended" : "unsuspended"} in D1: repeat the request`,
  );
}
