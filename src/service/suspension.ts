// What a suspension refuses. A suspended tenant starts no work: every action that would start a
// call (a create, a trigger, a debounced trigger, a backfill, a run retry, a dead-letter redrive;
// on /v2 a publish, enqueue or batch, a message run now, a DLQ retry, a workflow notify, resume,
// restart or failure-callback retry) asks here first and is refused with 409 `tenant_suspended`,
// before it consumes anything (a dead letter stays unredriven, a waiter waiting). Reads and
// control actions (pause, resume, edit, delete) still work: they start nothing while the tenant's
// timers are parked, and what they set takes effect at the unsuspend.
import { EdgecronError } from "../core/common/errors";
import { tenantSuspendedAtMs } from "../db/tenants";

/**
 * Throws 409 `tenant_suspended` when the tenant is suspended; `action` says what was refused.
 * @example await refuseWhileSuspended(env, "ten_1", "trigger a job") // throws while ten_1 is suspended
 */
export async function refuseWhileSuspended(env: Env, tenantId: string, action: string): Promise<void> {
  const suspendedAtMs = await tenantSuspendedAtMs(env.DB, tenantId);
  if (suspendedAtMs === null) return;
  throw new EdgecronError(
    "tenant_suspended",
    `Tenant ${tenantId} is suspended since ${new Date(suspendedAtMs).toISOString()}: it cannot ${action} until an admin unsuspends it; nothing was changed`,
  );
}
