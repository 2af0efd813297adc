import { decodeTimeCursor, encodeCursor, pageOf } from "../http/cursor";

/** The window a time-ordered list asks its service for: after the cursor, one row more than the page. */
export interface TimeWindow {
  cursor: { ms: number; id: string } | undefined;
  limit: number;
}

/**
 * One page of a list ordered by time then id (alerts, dead letters, runs): decodes the query's
 * cursor, fetches limit+1 rows so the extra one says whether a next page exists, and answers
 * `{ data, next_cursor }` with each row made a resource.
 */
export async function timeOrderedPage<Row extends { id: string }, Resource>(
  query: { cursor?: string | undefined; limit: number },
  list: (window: TimeWindow) => Promise<Row[]>,
  sortMsOf: (row: Row) => number,
  resourceOf: (row: Row) => Resource,
): Promise<{ data: Resource[]; next_cursor: string | null }> {
  const cursor = decodeTimeCursor(query.cursor);
  const rows = await list({ cursor, limit: query.limit + 1 });
  const { page, nextCursor } = pageOf(rows, query.limit, (row) => encodeCursor([sortMsOf(row), row.id]));
  return { data: page.map((row) => resourceOf(row)), next_cursor: nextCursor };
}
