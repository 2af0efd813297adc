// How stored values leave the API: instants (milliseconds since the epoch) as RFC 3339 UTC, and
// JSON text columns parsed with a fallback, so a row written by an older version never breaks a read.

/** RFC 3339 UTC with milliseconds: how every time leaves the API. @example iso(0) === "1970-01-01T00:00:00.000Z" */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** iso(ms), or null when there is no instant. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

/** The JSON value of a text column; `fallback` for null or text that is not JSON. */
export function parseJsonColumn<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
