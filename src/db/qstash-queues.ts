// D1 statements of the /v2 queues (migrations/0013_qstash_queues.sql).

export interface QueueRow {
  tenant_id: string;
  name: string;
  parallelism: number;
  created_at_ms: number;
  updated_at_ms: number;
}

/** Creates the queue or sets its parallelism; answers the stored row. */
export async function upsertQueue(
  db: D1Database,
  tenantId: string,
  name: string,
  parallelism: number,
  nowMs: number,
): Promise<QueueRow> {
  const row = await db
    .prepare(
      `INSERT INTO qstash_queues (tenant_id, name, parallelism, created_at_ms, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?4)
       ON CONFLICT (tenant_id, name) DO UPDATE SET parallelism = excluded.parallelism, updated_at_ms = excluded.updated_at_ms
       RETURNING *`,
    )
    .bind(tenantId, name, parallelism, nowMs)
    .first<QueueRow>();
  if (row === null) throw new Error("upsert returned no row");
  return row;
}

/** The queue, created with parallelism 1 when it does not exist yet (an enqueue creates it, as in QStash). */
export async function ensureQueue(
  db: D1Database,
  tenantId: string,
  name: string,
  nowMs: number,
): Promise<QueueRow> {
  await db
    .prepare(
      `INSERT INTO qstash_queues (tenant_id, name, parallelism, created_at_ms, updated_at_ms) VALUES (?1, ?2, 1, ?3, ?3)
       ON CONFLICT (tenant_id, name) DO NOTHING`,
    )
    .bind(tenantId, name, nowMs)
    .run();
  const row = await findQueue(db, tenantId, name);
  if (row === null) throw new Error("queue vanished after insert");
  return row;
}

export async function findQueue(db: D1Database, tenantId: string, name: string): Promise<QueueRow | null> {
  return db
    .prepare("SELECT * FROM qstash_queues WHERE tenant_id = ? AND name = ?")
    .bind(tenantId, name)
    .first<QueueRow>();
}

export async function listQueues(db: D1Database, tenantId: string): Promise<QueueRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM qstash_queues WHERE tenant_id = ? ORDER BY name LIMIT 1000")
    .bind(tenantId)
    .all<QueueRow>();
  return results;
}

/** True when a queue was removed. */
export async function deleteQueue(db: D1Database, tenantId: string, name: string): Promise<boolean> {
  const result = await db
    .prepare("DELETE FROM qstash_queues WHERE tenant_id = ? AND name = ?")
    .bind(tenantId, name)
    .run();
  return result.meta.changes > 0;
}
