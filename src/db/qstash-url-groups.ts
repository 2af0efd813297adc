// D1 statements of the /v2 URL groups (migrations/0047_qstash_url_groups.sql).

export interface UrlGroupEndpoint {
  url: string;
  name?: string;
}

export interface UrlGroup {
  name: string;
  endpoints: UrlGroupEndpoint[];
  createdAtMs: number;
  updatedAtMs: number;
}

interface UrlGroupRow {
  tenant_id: string;
  name: string;
  endpoints_json: string;
  created_at_ms: number;
  updated_at_ms: number;
}

function groupOf(row: UrlGroupRow): UrlGroup {
  return {
    name: row.name,
    endpoints: JSON.parse(row.endpoints_json) as UrlGroupEndpoint[],
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  };
}

export async function findUrlGroup(db: D1Database, tenantId: string, name: string): Promise<UrlGroup | null> {
  const row = await db
    .prepare("SELECT * FROM qstash_url_groups WHERE tenant_id = ? AND name = ?")
    .bind(tenantId, name)
    .first<UrlGroupRow>();
  return row === null ? null : groupOf(row);
}

export async function listUrlGroups(db: D1Database, tenantId: string): Promise<UrlGroup[]> {
  const { results } = await db
    .prepare("SELECT * FROM qstash_url_groups WHERE tenant_id = ? ORDER BY name LIMIT 1000")
    .bind(tenantId)
    .all<UrlGroupRow>();
  return results.map(groupOf);
}

/**
 * Writes the group's whole endpoint list, creating the group when it is new. The caller read the
 * list at `readAtMs` (0 for a new group): a write that another write overtook since changes
 * nothing and answers false, so two concurrent edits never drop each other's endpoints.
 */
export async function saveUrlGroup(
  db: D1Database,
  tenantId: string,
  name: string,
  endpoints: readonly UrlGroupEndpoint[],
  expected: { updatedAtMs: number } | null,
  nowMs: number,
): Promise<boolean> {
  const json = JSON.stringify(endpoints);
  const outcome =
    expected === null
      ? await db
          .prepare(
            `INSERT INTO qstash_url_groups (tenant_id, name, endpoints_json, created_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (tenant_id, name) DO NOTHING`,
          )
          .bind(tenantId, name, json, nowMs)
          .run()
      : await db
          .prepare(
            `UPDATE qstash_url_groups SET endpoints_json = ?3, updated_at_ms = MAX(?4, updated_at_ms + 1)
             WHERE tenant_id = ?1 AND name = ?2 AND updated_at_ms = ?5`,
          )
          .bind(tenantId, name, json, nowMs, expected.updatedAtMs)
          .run();
  return outcome.meta.changes > 0;
}

export async function deleteUrlGroup(db: D1Database, tenantId: string, name: string): Promise<boolean> {
  const outcome = await db
    .prepare("DELETE FROM qstash_url_groups WHERE tenant_id = ? AND name = ?")
    .bind(tenantId, name)
    .run();
  return outcome.meta.changes > 0;
}
