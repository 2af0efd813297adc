// `Upstash-Callback-*` and `Upstash-Failure-Callback-*` sub-headers: what the callback itself is
// called with. `...-Forward-X` becomes header X of the callback, `...-Workflow-X` its
// `Upstash-Workflow-X` and `...-Feature-Set` its `Upstash-Feature-Set` (the Workflow SDK routes a
// `context.call` answer and a failure back into the run this way). The callback's own delivery
// options (`...-Retries`, `...-Flow-Control-*`, ...) are not served: a callback is a side
// delivery with edgecron's fixed retries.

export const CALLBACK_PREFIX = "upstash-callback-";
export const FAILURE_CALLBACK_PREFIX = "upstash-failure-callback-";

/** The callback's headers from the message's sub-headers of `prefix` (lower-case names). */
export function callbackHeadersOf(
  headers: Headers,
  prefix: string,
  isDropped: (name: string) => boolean,
): Record<string, string> {
  const own: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!name.startsWith(prefix)) return;
    const sub = name.slice(prefix.length);
    const target = sub.startsWith("forward-")
      ? sub.slice("forward-".length)
      : sub.startsWith("workflow-")
        ? `upstash-${sub}`
        : sub === "feature-set"
          ? "upstash-feature-set"
          : "";
    if (target !== "" && !isDropped(target)) own[target] = value;
  });
  return own;
}
