// The client's address, where something the client cannot forge says it, for the failed-login
// throttle (./auth-throttle.ts) and the QStash caller address. `AUTH_CLIENT_ADDRESS` (a deployment
// var, wrangler.toml) names the source:
//   "cloudflare"     CF-Connecting-IP, which Cloudflare sets on every request it forwards to the
//                    Worker (a client's own header is overwritten), read only on a request that
//                    carries Cloudflare's `cf` properties;
//   "header:<Name>"  a header your own proxy sets (and strips from clients): its last entry,
//                    the one that proxy appended (`header:X-Forwarded-For`, `header:X-Real-IP`);
//   "none" (or unset, or anything else): no address can be trusted. `wrangler dev` and a bare
//                    workerd pass a client's CF-Connecting-IP through as sent, and workerd does
//                    not hand a Worker its socket's peer, so `npm start` runs "none".
// The console's in-process calls carry the address of the request they were made for.

export type ClientAddressSource =
  | { kind: "cloudflare" }
  | { kind: "header"; name: string }
  | { kind: "none" };

/** An address as a proxy or the platform writes it: IPv4 or IPv6 text, nothing else. */
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;

/**
 * The configured source; anything unrecognised is "none", never a header a client could send.
 * @example clientAddressSourceOf("header:X-Real-IP") // { kind: "header", name: "x-real-ip" }
 */
export function clientAddressSourceOf(setting: string | undefined): ClientAddressSource {
  const value = setting?.trim() ?? "";
  if (value.toLowerCase() === "cloudflare") return { kind: "cloudflare" };
  const header = /^header:\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/i.exec(value)?.[1];
  return header === undefined ? { kind: "none" } : { kind: "header", name: header.toLowerCase() };
}

const inProcessAddresses = new WeakMap<Request, string | null>();

/** Marks a Request built in this Worker (the console's API call) with its visitor's address. */
export function withClientAddress(request: Request, address: string | null): Request {
  inProcessAddresses.set(request, address);
  return request;
}

/** The request's client address by `AUTH_CLIENT_ADDRESS`, or null when none can be trusted. */
export function clientAddressOf(request: Request, env: { AUTH_CLIENT_ADDRESS?: string }): string | null {
  if (inProcessAddresses.has(request)) return inProcessAddresses.get(request) ?? null;
  const source = clientAddressSourceOf(env.AUTH_CLIENT_ADDRESS);
  if (source.kind === "none") return null;
  if (source.kind === "cloudflare") {
    // Only Cloudflare's edge (or a runtime standing in for it) attaches `cf`; a bare workerd
    // serving this configuration does not, and its CF-Connecting-IP is whatever the client sent.
    if (typeof request.cf !== "object" || request.cf === null) return null;
    return addressOrNull(request.headers.get("cf-connecting-ip"));
  }
  const entries = request.headers.get(source.name)?.split(",") ?? [];
  return addressOrNull(entries.at(-1) ?? null);
}

function addressOrNull(value: string | null): string | null {
  const trimmed = value?.trim() ?? "";
  return ADDRESS.test(trimmed) ? trimmed.toLowerCase() : null;
}
