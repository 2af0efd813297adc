import { base64UrlOf } from "../../core/common/encoding";
import { EdgecronError } from "./problem";

/** Opaque page cursor: base64url of the last item's sort key parts joined by "|" (just the id for jobs). */
export function encodeCursor(parts: readonly (string | number)[]): string {
  return base64UrlOf(new TextEncoder().encode(parts.join("|")));
}

function invalidCursor(): EdgecronError {
  return new EdgecronError("invalid_cursor", "The cursor is not one this API returned", {
    errors: [{ path: "cursor", message: "is not a valid cursor" }],
  });
}

export function decodeCursor(cursor: string, partCount: number): string[] {
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(binary, (char) => char.charCodeAt(0)),
    );
    const parts = text.split("|");
    if (parts.length !== partCount || parts.some((part) => part === "")) throw invalidCursor();
    return parts;
  } catch {
    throw invalidCursor();
  }
}

/** `(created_at_ms, id)` cursors for tables ordered by time then id. */
export function decodeTimeCursor(cursor: string | undefined): { ms: number; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const [ms, id] = decodeCursor(cursor, 2);
  if (ms === undefined || id === undefined || !/^\d{1,16}$/.test(ms)) throw invalidCursor();
  return { ms: Number(ms), id };
}

/** One page: the rows fetched with LIMIT n+1, cut to n, and the cursor for the next page. */
export function pageOf<T>(
  rows: T[],
  limit: number,
  cursorOf: (last: T) => string,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
