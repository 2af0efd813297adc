// The one validator of every header map the API takes: a job's target headers (and so the
// `Upstash-Forward-*` headers a /v2 message forwards), the callback and failure-callback headers
// of a /v2 message, the `timeoutHeaders` of `POST /v2/wait/{event}` and the headers of each
// `POST /v2/batch` item. A name that is not an HTTP token (RFC 9110), a value holding CR, LF, NUL
// or another control character, or the wrong JSON shape is refused naming the field, where it
// used to reach `new Headers()` and answer 500, or be coerced.
import { z } from "zod";

/** RFC 9110 token characters, 1-100 of them. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** A field value: visible ASCII, Latin-1 (obs-text), space and tab; no other control character. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const MAX_HEADER_VALUE_BYTES = 8 * 1024;

export const HEADER_NAME_MESSAGE = "is not a valid header name (1-100 HTTP token characters, RFC 9110)";
export const HEADER_VALUE_MESSAGE =
  "must contain only visible characters, spaces and tabs (no CR, LF, NUL or other control characters; Latin-1 at most)";

/** One problem, `path` relative to the map (`[]` for the map itself, `[name]` for one header). */
export interface HeaderMapIssue {
  path: string[];
  message: string;
}

export interface CheckedHeaderMap {
  /** The map as names to values (a list's first value); null when its shape is wrong. */
  headers: Record<string, string> | null;
  issues: HeaderMapIssue[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a header map. `lists`: each value is a list of strings, as QStash's `timeoutHeaders`
 * (`{"X-Id": ["1"]}`); otherwise each value is one string. Names are data (a `__proto__` name is
 * a name like any other).
 *
 * @example headerMapIssues({ "X Bad": "a", "X-Ok": "a\r\nb" }).issues
 * // [{ path: ["X Bad"], message: "is not a valid header name ..." }, { path: ["X-Ok"], message: "must contain only visible ..." }]
 */
export function headerMapIssues(value: unknown, options: { lists?: boolean } = {}): CheckedHeaderMap {
  const shape = options.lists ? "lists of strings" : "strings";
  if (!isPlainObject(value)) {
    return {
      headers: null,
      issues: [{ path: [], message: `must be an object of header names to ${shape}` }],
    };
  }
  const issues: HeaderMapIssue[] = [];
  const entries: [string, string][] = [];
  for (const [name, raw] of Object.entries(value)) {
    const values = options.lists && Array.isArray(raw) ? raw : [raw];
    if (!HEADER_NAME.test(name)) {
      issues.push({ path: [name], message: HEADER_NAME_MESSAGE });
      continue;
    }
    if (options.lists && (!Array.isArray(raw) || raw.length === 0)) {
      issues.push({ path: [name], message: "must be a list of at least one string" });
      continue;
    }
    const problem = values.find((one) => typeof one !== "string")
      ? "must be a string"
      : values.some((one) => (one as string).length > MAX_HEADER_VALUE_BYTES)
        ? `must be at most ${MAX_HEADER_VALUE_BYTES} characters`
        : values.some((one) => !HEADER_VALUE.test(one as string))
          ? HEADER_VALUE_MESSAGE
          : null;
    if (problem !== null) issues.push({ path: [name], message: problem });
    else entries.push([name, values[0] as string]);
  }
  // Object.fromEntries defines each name as an own property, `__proto__` included.
  return { headers: Object.fromEntries(entries), issues };
}

/**
 * A header map field of a zod schema (names to strings): headerMapIssues, then `policy` on a map
 * that passed (a target's reserved and hop-by-hop names, its size). The value is kept as given.
 */
export function headerMapSchema(policy?: (headers: Record<string, string>) => HeaderMapIssue[]) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const checked = headerMapIssues(value);
      const issues = [...checked.issues];
      if (issues.length === 0 && checked.headers !== null && policy) issues.push(...policy(checked.headers));
      for (const issue of issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    })
    .meta({ type: "object", additionalProperties: { type: "string" } }) as unknown as z.ZodType<
    Record<string, string>
  >;
}
