/** Rows strictly after a `(time, id)` cursor in a list ordered by time DESC, id DESC. */
export interface TimeCursor {
  ms: number;
  id: string;
}

export interface Where {
  clauses: string[];
  values: (string | number)[];
}

export function where(first: string, ...values: (string | number)[]): Where {
  return { clauses: [first], values };
}

export function addClause(target: Where, clause: string, ...values: (string | number)[]): void {
  target.clauses.push(clause);
  target.values.push(...values);
}

export function addCursor(target: Where, column: string, cursor: TimeCursor | undefined): void {
  if (cursor === undefined) return;
  addClause(target, `(${column} < ? OR (${column} = ? AND id < ?))`, cursor.ms, cursor.ms, cursor.id);
}

/** SELECT * ... ORDER BY column DESC, id DESC LIMIT n. */
export async function selectPage<Row>(
  db: D1Database,
  table: string,
  filter: Where,
  orderColumn: string,
  limit: number,
): Promise<Row[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM ${table} WHERE ${filter.clauses.join(" AND ")} ORDER BY ${orderColumn} DESC, id DESC LIMIT ?`,
    )
    .bind(...filter.values, limit)
    .all<Row>();
  return results;
}
