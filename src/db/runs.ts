// The run history table of D1, from before history moved into the shards (each shard keeps its
// runs' history: durable-objects/shard/records/page-records.ts). Nothing writes it any more: the
// maintenance pass moves its rows, a batch a pass, into the shards that own them, then deletes
// them here (durable-objects/maintenance/legacy-history.ts).
import type { HistoryRecord } from "../shard/history-protocol";

/** A legacy history row: the columns of a history record (long-running columns may be NULL). */
export type LegacyRunRow = Omit<HistoryRecord, "accepted_at_ms" | "heartbeat_at_ms" | "result_json"> & {
  accepted_at_ms: number | null;
  heartbeat_at_ms: number | null;
  result_json: string | null;
};

/** Up to `limit` legacy rows, in id order (any order would do: each is moved once, then deleted). */
export async function listLegacyRuns(db: D1Database, limit: number): Promise<LegacyRunRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM runs ORDER BY id LIMIT ?")
    .bind(limit)
    .all<LegacyRunRow>();
  return results;
}

/** Deletes legacy rows by id once their shard holds them. */
export async function deleteLegacyRuns(db: D1Database, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .prepare("DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(ids))
    .run();
  return result.meta.changes ?? 0;
}
