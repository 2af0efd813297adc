// What the `list` commands share: the page flags, a filter flag that names its allowed values,
// and fetching one page or, with --all, every page.
import type { Page } from "../client/index";
import {
  type Context,
  collect,
  type FlagValues,
  filterFlag,
  intFlag,
  printJson,
  stringFlag,
  UsageError,
} from "./context";
import { type Column, renderTable } from "./render";

/** The flags of a paged list: `--limit <n> --cursor <c> --all`. */
export const PAGE_OPTIONS = {
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
} as const;

/** `--limit` and `--cursor` as the API's page parameters (undefined when absent). */
export function pageParams(values: FlagValues): { limit: number | undefined; cursor: string | undefined } {
  return { limit: intFlag(values, "limit", { min: 1, max: 200 }), cursor: stringFlag(values, "cursor") };
}

/**
 * A filter flag that must be one of `allowed` (after `normalize`, e.g. upper-casing a state),
 * else a usage error naming them; undefined when absent.
 */
export function oneOfFlag<T extends string>(
  values: FlagValues,
  flag: string,
  allowed: readonly T[],
  normalize: (value: string) => string = (value) => value,
): T | undefined {
  const raw = filterFlag(values, flag);
  if (raw === undefined) return undefined;
  const value = normalize(raw);
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}`);
  return value as T;
}

/** A client resource that lists in pages and can walk them all. */
interface PagedResource<Params, Item> {
  list(params: Params): Promise<Page<Item>>;
  all(params: Params): AsyncIterable<Item>;
}

/** Prints the page `params` asks for, or every page as one with --all. */
export async function printList<Params, Item>(
  ctx: Context,
  resource: PagedResource<Params, Item>,
  params: Params,
  columns: Column<Item>[],
  emptyText: string,
): Promise<number> {
  const page = ctx.values.all
    ? { data: await collect(resource.all(params)), next_cursor: null }
    : await resource.list(params);
  printPage(ctx, page, columns, emptyText);
  return 0;
}

/** A page as JSON, or as a table with a hint on stderr when more pages exist. */
export function printPage<T>(ctx: Context, page: Page<T>, columns: Column<T>[], emptyText: string): void {
  if (ctx.json) {
    printJson(ctx.io, page);
    return;
  }
  ctx.io.stdout.write(renderTable(columns, page.data, emptyText));
  if (page.next_cursor) ctx.io.stderr.write(`more: --cursor ${page.next_cursor} (or --all)\n`);
}
