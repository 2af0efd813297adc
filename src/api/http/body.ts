import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { EdgecronError, fieldErrorsOf, validationError } from "./problem";

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Deepest nesting of objects and arrays we accept. JSON.parse copes with any depth, but code
 * that recurses over a body (the idempotency hash, the PATCH merge) overflowed the stack and
 * answered 500 on a 50,000-deep body; no real job needs more than a few dozen levels.
 */
export const MAX_JSON_DEPTH = 64;

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const mediaType = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * The one reader of request bodies: at most `maxBytes`, counted as the bytes arrive (a declared
 * `Content-Length` over it is refused before reading anything), so a 10 MB body is never held
 * whole. 413 `payload_too_large` past the cap.
 */
export async function readBoundedBytes(request: Request, maxBytes = MAX_BODY_BYTES): Promise<ArrayBuffer> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  if (request.body === null) return new ArrayBuffer(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let totalBytes = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      totalBytes += chunk.value.byteLength;
      if (totalBytes > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    if (error instanceof EdgecronError) throw error;
    throw new EdgecronError("invalid_json", "The request body could not be read");
  }
  const bytes = new Uint8Array(totalBytes);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}

/**
 * Every request with a body goes through readBoundedBytes before any route runs (the Worker's
 * entry, the v1 and /v2 APIs and the console mount it), and its bytes are what Hono's
 * `c.req.json()`, `.text()`, `.arrayBuffer()` and `.parseBody()` then read: no route can read
 * more than MAX_BODY_BYTES, whichever way it reads.
 */
export const boundedBody: MiddlewareHandler = async (c, next) => {
  if (c.req.raw.body !== null && c.req.raw.bodyUsed === false && !("arrayBuffer" in c.req.bodyCache)) {
    const bytes = await readBoundedBytes(c.req.raw);
    // Hono keeps the promise of each read here (its type says the value): every later read of
    // the body, in any form, is served from these bytes.
    c.req.bodyCache.arrayBuffer = Promise.resolve(bytes) as unknown as ArrayBuffer;
  }
  return next();
};

/**
 * Reads the body as JSON from its raw bytes: 415 for a non-JSON content type, 413 over 1 MB,
 * 400 `invalid_json` for anything JSON.parse (or UTF-8) rejects. Never throws anything else.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    throw new EdgecronError("unsupported_media_type", "Send the body as application/json");
  }
  let bytes: ArrayBuffer;
  try {
    // Bounded already: boundedBody read it before any route ran.
    bytes = await c.req.arrayBuffer();
  } catch (error) {
    if (error instanceof EdgecronError) throw error;
    throw new EdgecronError("invalid_json", "The request body could not be read");
  }
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  let value: unknown;
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "unreadable";
    throw new EdgecronError("invalid_json", `The request body is not valid JSON: ${reason}`);
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new EdgecronError("invalid_json", `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const illFormed = illFormedStrings(value);
  if (illFormed.length > 0) {
    throw new EdgecronError("validation_failed", "The request body holds text that is not valid Unicode", {
      errors: illFormed.map((path) => ({ path, message: "contains a lone surrogate (ill-formed Unicode)" })),
    });
  }
  return value;
}

/** Iterative on purpose: a recursive walk would overflow on exactly the bodies it must refuse. */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [node: unknown, depth: number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Dotted paths of strings (or keys) holding a lone surrogate: `"\ud800"` is valid JSON but not
 * Unicode, and could never be stored faithfully or sent on to a target as UTF-8.
 */
function illFormedStrings(value: unknown): string[] {
  const found: string[] = [];
  const pending: [node: unknown, path: string][] = [[value, ""]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, path] = next;
    if (typeof node === "string") {
      if (!node.isWellFormed()) found.push(path);
      continue;
    }
    if (typeof node !== "object" || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      const childPath = path === "" ? key.toWellFormed() : `${path}.${key.toWellFormed()}`;
      if (!key.isWellFormed()) found.push(childPath);
      else pending.push([child, childPath]);
    }
  }
  return found;
}

function tooLarge(): EdgecronError {
  return new EdgecronError(
    "payload_too_large",
    `The request body must be at most ${MAX_BODY_BYTES} bytes (1 MiB)`,
  );
}

/** Validates a value against a schema, or throws 400 `validation_failed` listing every issue. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix: (string | number)[] = []) {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(fieldErrorsOf(result.error.issues, prefix));
  return result.data as z.output<S>;
}

/** readJsonBody + parseWith. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  return parseWith(schema, await readJsonBody(c));
}
