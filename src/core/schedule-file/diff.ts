// A field-by-field diff of two JSON values (what the tenant has, what the file says), as a plan
// shows it: one entry per leaf that differs, with dotted paths as the API's field errors have them.

/** One field that differs; `before` absent: the field is new; `after` absent: it goes. */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** Shown instead of a header value a plan must not print (CI logs are often public). */
export const HIDDEN_VALUE = "(hidden)";
const SENSITIVE_HEADER = /authorization|cookie|token|secret|password|passwd|api-?key|signature|credential/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalarList(value: unknown[]): boolean {
  return value.every((item) => item === null || typeof item !== "object");
}

/**
 * Whether two JSON values are equal: objects by their own keys (in any order), arrays in order.
 * @example sameJson({ a: 1, b: [2] }, { b: [2], a: 1 }) // true
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return false;
}

/**
 * The leaves that differ. Objects recurse by key (a key absent on one side is a change of the
 * whole value under it); lists of objects (`schedules`, calendar `rules`) recurse by position;
 * lists of scalars and anything else are one change.
 * @example diffJson({ retry: { max_attempts: 3 } }, { retry: { max_attempts: 5 } })
 * // [{ path: "retry.max_attempts", before: 3, after: 5 }]
 */
export function diffJson(before: unknown, after: unknown, path = ""): FieldChange[] {
  if (sameJson(before, after)) return [];
  const at = (key: string | number) => (path === "" ? String(key) : `${path}.${key}`);
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...Object.keys(after), ...Object.keys(before).filter((key) => !Object.hasOwn(after, key))];
    return keys.flatMap((key) => {
      if (!Object.hasOwn(before, key)) return [{ path: at(key), after: after[key] }];
      if (!Object.hasOwn(after, key)) return [{ path: at(key), before: before[key] }];
      return diffJson(before[key], after[key], at(key));
    });
  }
  if (Array.isArray(before) && Array.isArray(after) && !(isScalarList(before) && isScalarList(after))) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_unused, index) => {
      if (index >= before.length) return [{ path: at(index), after: after[index] }];
      if (index >= after.length) return [{ path: at(index), before: before[index] }];
      return diffJson(before[index], after[index], at(index));
    }).flat();
  }
  return [{ path, before, after }];
}

/**
 * The changes with the values of credential-like target headers (Authorization, Cookie, anything
 * named like a token, key, secret or password) hidden, wherever the change holds them: the path
 * still says what changed.
 * @example hideSecrets([{ path: "target.headers.authorization", before: "Bearer a", after: "Bearer b" }])
 * // [{ path: "target.headers.authorization", before: "(hidden)", after: "(hidden)" }]
 */
export function hideSecrets(changes: readonly FieldChange[]): FieldChange[] {
  return changes.map((change) => ({
    path: change.path,
    ...("before" in change ? { before: hiddenAt(change.path, change.before) } : {}),
    ...("after" in change ? { after: hiddenAt(change.path, change.after) } : {}),
  }));
}

function hiddenAt(path: string, value: unknown): unknown {
  const header = /^target\.headers\.(.+)$/.exec(path)?.[1];
  if (header !== undefined) return SENSITIVE_HEADER.test(header) ? HIDDEN_VALUE : value;
  if (path === "target.headers" && isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, SENSITIVE_HEADER.test(name) ? HIDDEN_VALUE : item]),
    );
  }
  if (path === "target" && isPlainObject(value) && isPlainObject(value.headers)) {
    return { ...value, headers: hiddenAt("target.headers", value.headers) };
  }
  return value;
}
