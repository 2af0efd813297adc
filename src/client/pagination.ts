import type { Page, PageParams } from "./types";

/**
 * Follows `next_cursor` from the first page on, yielding each page.
 * @example for await (const page of paginate((cursor) => client.jobs.list({ cursor }))) ...
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  startCursor?: string,
): AsyncGenerator<Page<T>, void, undefined> {
  let cursor = startCursor;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    if (!page.next_cursor || page.next_cursor === cursor) return;
    cursor = page.next_cursor;
  }
}

/** Yields every item of every page. */
export async function* paginateItems<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}

/** Turns page params into query values (the API takes `limit` and `cursor` as query strings). */
export function pageQuery<P extends PageParams>(
  params: P | undefined,
): Record<string, string | number | undefined> {
  return { ...(params as Record<string, string | number | undefined> | undefined) };
}
