// Shard confirmations recorded in D1 (`synced_version`), coalesced per isolate. After a pause,
// resume or delete answers, its confirmation is one more D1 write; during a flood of deletes that
// was one statement (and one commit) per delete, on the same database the deletes themselves wait
// for. Here the first confirmation is written at once and those that arrive while that write runs
// are written together right after it, by the same caller: group commit, with no wait added when
// nothing else is being written.
//
// No caller waits on another's write (a promise of one request settled from another's I/O is
// fragile in Workers). A confirmation that is never written costs only a re-send: the outbox sweep
// pushes every job whose synced_version is behind, and a shard takes a version it already has as a
// no-op. So a write left behind by a request that ended is simply taken over after a while.
import type { JobStores } from "./databases";
import { markStoredJobsSynced } from "./job-store";

/** Confirmations per statement, at most (each is an entry of one json_each). */
export const MARKS_PER_WRITE = 200;
/** Writes one caller makes before it leaves the rest to the next caller (its request may end). */
const WRITES_PER_CALLER = 8;
/** A write still "running" after this was abandoned (its request was cancelled): take over. */
const ABANDONED_AFTER_MS = 10_000;

interface PendingMarks {
  /** Job id -> the highest confirmed version not yet written. */
  waiting: Map<string, number>;
  /** When the write under way started, null when none is. */
  writingSinceMs: number | null;
}

const pendingByStores = new WeakMap<JobStores, PendingMarks>();

/**
 * Records that shards confirmed these versions, now or together with the confirmations that
 * arrive meanwhile. Resolves once this caller's part is done: the marks are written, or left to
 * the write under way. Throws what the write threw (the marks it held are then left to the sweep).
 */
export async function markJobsSyncedSoon(
  stores: JobStores,
  confirmed: readonly { id: string; version: number }[],
): Promise<void> {
  if (confirmed.length === 0) return;
  const pending = pendingOf(stores);
  for (const { id, version } of confirmed) {
    pending.waiting.set(id, Math.max(pending.waiting.get(id) ?? 0, version));
  }
  const nowMs = Date.now();
  if (pending.writingSinceMs !== null && nowMs - pending.writingSinceMs < ABANDONED_AFTER_MS) return;
  pending.writingSinceMs = nowMs;
  try {
    for (let write = 0; write < WRITES_PER_CALLER && pending.waiting.size > 0; write++) {
      await markStoredJobsSynced(stores, takeWaiting(pending));
      pending.writingSinceMs = Date.now();
    }
  } finally {
    pending.writingSinceMs = null;
  }
}

/** Confirmations waiting to be written in this isolate (for tests and diagnostics). */
export function waitingSyncedMarks(stores: JobStores): number {
  return pendingByStores.get(stores)?.waiting.size ?? 0;
}

function pendingOf(stores: JobStores): PendingMarks {
  let pending = pendingByStores.get(stores);
  if (pending === undefined) {
    pending = { waiting: new Map(), writingSinceMs: null };
    pendingByStores.set(stores, pending);
  }
  return pending;
}

function takeWaiting(pending: PendingMarks): { id: string; version: number }[] {
  const taken: { id: string; version: number }[] = [];
  for (const [id, version] of pending.waiting) {
    if (taken.length === MARKS_PER_WRITE) break;
    taken.push({ id, version });
  }
  for (const { id } of taken) pending.waiting.delete(id);
  return taken;
}
