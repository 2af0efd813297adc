// QStash queues (/v2/queues): a queue's row in D1 holds its parallelism; whether it is paused is
// its flow-control key's state at the key's gate. The door validates and renders; this reads and
// changes both.
import { queueFlowKey } from "../../core/qstash/queue-keys";
import {
  deleteQueue,
  ensureQueue,
  findQueue,
  listQueues,
  type QueueRow,
  upsertQueue,
} from "../../db/qstash-queues";
import { loadTenantLimits } from "../../db/tenant-limits";
import { flowControlState, gateState, setFlowControlPaused, tenantGate } from "../../gate/client";
import { tenantLimitDefaults } from "../admission";

export type { QueueRow };

/** A queue and whether its key is paused at its gate. */
export interface QueueState {
  row: QueueRow;
  paused: boolean;
}

async function isQueuePaused(env: Env, tenantId: string, name: string): Promise<boolean> {
  return (await flowControlState(env, tenantId, queueFlowKey(name))).paused === true;
}

/** Creates or updates a queue; `paused` set pauses or resumes its key too. */
export async function saveQueue(
  env: Env,
  tenantId: string,
  queue: { name: string; parallelism: number; paused?: boolean },
  nowMs: number,
): Promise<QueueState> {
  const row = await upsertQueue(env.DB, tenantId, queue.name, queue.parallelism, nowMs);
  if (queue.paused !== undefined)
    await setFlowControlPaused(env, tenantId, queueFlowKey(row.name), queue.paused);
  return { row, paused: await isQueuePaused(env, tenantId, row.name) };
}

export async function listQueueStates(env: Env, tenantId: string): Promise<QueueState[]> {
  const rows = await listQueues(env.DB, tenantId);
  return Promise.all(
    rows.map(async (row) => ({ row, paused: await isQueuePaused(env, tenantId, row.name) })),
  );
}

/** The queue named so, or null. */
export async function readQueueState(env: Env, tenantId: string, name: string): Promise<QueueState | null> {
  const row = await findQueue(env.DB, tenantId, name);
  return row === null ? null : { row, paused: await isQueuePaused(env, tenantId, row.name) };
}

/** Whether a queue of that name was there to delete. */
export function removeQueue(env: Env, tenantId: string, name: string): Promise<boolean> {
  return deleteQueue(env.DB, tenantId, name);
}

/**
 * Pauses or resumes a queue's key (its messages wait at their shards, none is lost; a call in
 * flight finishes); null when there is no such queue.
 */
export async function setQueuePaused(
  env: Env,
  tenantId: string,
  name: string,
  paused: boolean,
): Promise<QueueState | null> {
  const row = await findQueue(env.DB, tenantId, name);
  if (row === null) return null;
  await setFlowControlPaused(env, tenantId, queueFlowKey(row.name), paused);
  return { row, paused };
}

/** A queue's parallelism; a queue not created yet is 1, as QStash makes it on first use. */
export async function queueParallelism(env: Env, tenantId: string, name: string): Promise<number> {
  return (await findQueue(env.DB, tenantId, name))?.parallelism ?? 1;
}

/** Creates the queues a publish or a schedule names that do not exist yet (parallelism 1). */
export async function ensureQueues(
  env: Env,
  tenantId: string,
  names: Iterable<string>,
  nowMs: number,
): Promise<void> {
  for (const name of names) await ensureQueue(env.DB, tenantId, name, nowMs);
}

/**
 * QStash's account-wide cap on calls in flight is the tenant's `concurrent_calls` limit, and the
 * count its gate's calls in flight now; with no limit no gate counts, and both are 0.
 */
export async function globalParallelism(
  env: Env,
  tenantId: string,
): Promise<{ max: number; inFlight: number }> {
  const { limits } = await loadTenantLimits(env.DB, tenantId, tenantLimitDefaults(env));
  const max = limits.concurrent_calls;
  const inFlight = max === null ? 0 : (await gateState(env, tenantGate(tenantId))).inFlight;
  return { max: max ?? 0, inFlight };
}
