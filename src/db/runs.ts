// The run history table of D1, from before history moved into the shards (each shard keeps its
// runs' history: durable-objects/shard/history-store.ts). Nothing writes or reads it any more;
// the maintenance pass prunes it by the same retention until it is empty.
import { sqlInList, TERMINAL_STATES } from "../core/run-state";

/** Deletes up to `limit` legacy terminal runs last changed before `beforeMs`; returns how many. */
export async function pruneTerminalRuns(db: D1Database, beforeMs: number, limit: number): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM runs WHERE id IN (
         SELECT id FROM runs WHERE updated_at_ms < ? AND state IN ${sqlInList(TERMINAL_STATES)} LIMIT ?)`,
    )
    .bind(beforeMs, limit)
    .run();
  return result.meta.changes ?? 0;
}
