// The destination of a publish, read from the raw request URL. The client joins the path from
// raw segments without encoding the destination, so `publish({url: "https://a.b/p?x=1"})`
// requests `/v2/publish/https://a.b/p?x=1`: the destination's query string lands in the
// request's own query, and its `//` must survive (Hono's c.req.path would drop the query).

export type Destination = { ok: true; url: string } | { ok: false; error: string };

/**
 * The destination after `routePrefix` (say `/v2/publish/`) in the raw URL, with the query,
 * unchecked (checkDestination checks it).
 *
 * @example rawDestinationOf("http://e/v2/publish/https://a.b/p?x=1", "/v2/publish/") === "https://a.b/p?x=1"
 */
export function rawDestinationOf(requestUrl: string, routePrefix: string): string {
  const url = new URL(requestUrl);
  const start = url.pathname.indexOf(routePrefix);
  const rest = start === -1 ? "" : url.pathname.slice(start + routePrefix.length);
  return `${rest}${url.search}`;
}

/** A destination as a batch item or the path gives it: an absolute http(s) URL. */
export function checkDestination(destination: string): Destination {
  if (destination === "") return { ok: false, error: "destination: give the URL to call after the route" };
  // The client never encodes it, but a hand-written call may (`https%3A%2F%2Fa.b%2Fp`); and a
  // proxy on the way may have merged the `//` after the scheme.
  const decoded = /^https?%3A/i.test(destination) ? safeDecode(destination) : destination;
  const repaired = decoded.replace(/^(https?):\/(?!\/)/, "$1://");
  if (!URL.canParse(repaired) || !["http:", "https:"].includes(new URL(repaired).protocol)) {
    return {
      ok: false,
      error: `destination: ${JSON.stringify(destination.slice(0, 200))} is neither an http(s) URL nor a URL group name (API names are not served)`,
    };
  }
  return { ok: true, url: repaired };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
