// Resolving target names before a call, for runtimes whose fetch can reach private networks (a
// self-hosted workerd): DNS over HTTPS, the one resolver a Worker can use. Off unless the
// deployment sets TARGET_DNS_RESOLVER; the rules applied to the answers are in src/core/targets/ssrf.ts.
import type { ResolveHost } from "../core/targets/ssrf";

/** DNS record types in a DoH JSON answer (RFC 1035 / RFC 3596). */
const TYPE_A = 1;
const TYPE_AAAA = 28;
const LOOKUP_TIMEOUT_MS = 5_000;
/** Answers are kept per isolate for their TTL, capped: one lookup per name, not per call. */
const MAX_CACHE_TTL_MS = 60_000;
const CACHE_LIMIT = 1_000;

interface DohAnswer {
  Status?: number;
  Answer?: { type?: number; data?: string; TTL?: number }[];
}

/**
 * The resolver TARGET_DNS_RESOLVER asks for, or undefined when it is unset or "off".
 * @example resolverFromEnv({ TARGET_DNS_RESOLVER: "https://cloudflare-dns.com/dns-query" })
 */
export function resolverFromEnv(env: { TARGET_DNS_RESOLVER?: string }): ResolveHost | undefined {
  const endpoint = env.TARGET_DNS_RESOLVER?.trim() ?? "";
  if (endpoint === "" || endpoint === "off") return undefined;
  // One resolver (and so one answer cache) per endpoint per isolate.
  let resolver = resolvers.get(endpoint);
  if (resolver === undefined) {
    resolver = dohResolver(endpoint);
    resolvers.set(endpoint, resolver);
  }
  return resolver;
}

const resolvers = new Map<string, ResolveHost>();

/** Resolves A and AAAA records with a DoH JSON endpoint (`?name=&type=`, `application/dns-json`). */
export function dohResolver(
  endpoint: string,
  fetchImpl: typeof fetch = fetch,
  clockMs = Date.now,
): ResolveHost {
  const cache = new Map<string, { addresses: string[]; expiresAtMs: number }>();
  return async (hostname) => {
    const cached = cache.get(hostname);
    if (cached !== undefined && cached.expiresAtMs > clockMs()) return cached.addresses;
    const answers = await Promise.all(
      [TYPE_A, TYPE_AAAA].map((type) => lookup(endpoint, hostname, type, fetchImpl)),
    );
    const addresses = answers.flatMap((answer) => answer.addresses);
    const ttlMs = Math.min(MAX_CACHE_TTL_MS, ...answers.map((answer) => answer.ttlMs));
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(hostname, { addresses, expiresAtMs: clockMs() + ttlMs });
    return addresses;
  };
}

async function lookup(
  endpoint: string,
  hostname: string,
  type: number,
  fetchImpl: typeof fetch,
): Promise<{ addresses: string[]; ttlMs: number }> {
  const url = new URL(endpoint);
  url.searchParams.set("name", hostname);
  url.searchParams.set("type", type === TYPE_A ? "A" : "AAAA");
  const response = await fetchImpl(url, {
    headers: { accept: "application/dns-json" },
    signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`DNS over HTTPS answered ${response.status}`);
  const body = (await response.json()) as DohAnswer;
  // NOERROR (0) and NXDOMAIN (3) are answers; SERVFAIL and the rest are not.
  if (body.Status !== 0 && body.Status !== 3) throw new Error(`DNS over HTTPS status ${String(body.Status)}`);
  const records = (body.Answer ?? []).filter(
    (record) => record.type === type && typeof record.data === "string",
  );
  return {
    addresses: records.map((record) => record.data as string),
    ttlMs: Math.min(MAX_CACHE_TTL_MS, ...records.map((record) => (record.TTL ?? 0) * 1000)),
  };
}
