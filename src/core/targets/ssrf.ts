/**
 * Server-side request forgery rules for target URLs, applied at job create and again at call
 * time (a job stored before a rule existed, or a URL smuggled past the API, is still refused).
 *
 * By address: every block of the IANA special-purpose registries (special-addresses.ts), in
 * every textual form of IPv4 and IPv6. By name: names that only mean this machine or an internal
 * network, wildcard-DNS services that spell addresses, and names embedding a special address
 * (ssrf-names.ts). What a public-looking name resolves to is checked only when a resolver is
 * given (`resolvedTargetProblem`, DNS over HTTPS from the consumer); without one the platform is
 * the guarantee, as the README's SSRF paragraph states.
 */
import { parseIPv4, parseIPv6 } from "./ip-parse";
import { ipv4Problem, ipv6Problem } from "./special-addresses";
import { privateNameProblem } from "./ssrf-names";
import { isAllowedTarget, type TargetPolicy } from "./target-policy";

/** Thrown by the target call when a URL is refused; classified as a permanent failure. */
export class TargetRefusedError extends Error {
  override readonly name = "TargetRefusedError";
}

/**
 * Why a target URL may not be called, or null if it may. Refuses non-http(s) schemes and
 * credentials in the URL always; unless `allowPrivate` or the host is on `allowedTargets`
 * (target-policy.ts), also every special-purpose address (loopback, private, link-local and cloud
 * metadata 169.254.169.254, CGNAT, documentation, benchmarking, multicast, reserved; IPv4-mapped,
 * NAT64, 6to4 and Teredo forms) and private or address-spelling names (`localhost`, `*.internal`,
 * `127.0.0.1.nip.io`, `localtest.me`).
 *
 * IPv4 written as one integer, in octal or hex, or short (`http://2130706433/`, `http://0x7f.1/`,
 * `http://127.1/`) is normalized to dotted form by the WHATWG URL parser, and parsed in every
 * form again here in case it was not.
 *
 * @example targetAddressProblem("http://127.0.0.1:8080/hook", { allowPrivate: false })
 * // -> "target resolves to a private address (127.0.0.1 is loopback, 127.0.0.0/8); refused"
 */
export function targetAddressProblem(url: string, options: TargetPolicy): string | null {
  const key = decisionKey(url, options);
  const known = addressDecisions.get(key);
  if (known !== undefined) return known;
  const problem = decideAddressProblem(url, options);
  if (addressDecisions.size >= ADDRESS_DECISION_LIMIT) addressDecisions.clear();
  addressDecisions.set(key, problem);
  return problem;
}

/**
 * Decisions for the URLs called lately: every call checks its URL again, and parsing it was a
 * visible share of a burst's CPU while a tenant's jobs call a handful of URLs. The decision
 * depends on the URL and the policy only, so the key holds both.
 */
const ADDRESS_DECISION_LIMIT = 1_000;
const addressDecisions = new Map<string, string | null>();

function decisionKey(url: string, options: TargetPolicy): string {
  const allowed = options.allowedTargets ?? [];
  const list = allowed.length === 0 ? "" : allowed.map((entry) => `${entry.host}:${entry.port}`).join(",");
  return `${options.allowPrivate ? 1 : 0} ${list} ${url}`;
}

function decideAddressProblem(url: string, options: TargetPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "target URL is not a valid absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `target URL must use http or https, not ${parsed.protocol.replace(/:$/, "")}`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return "target URL must not contain credentials (user:password@); send them in a header";
  }
  const malformed = malformedHostProblem(url, parsed.hostname);
  if (malformed !== null) return malformed;
  if (options.allowPrivate || isAllowedTarget(parsed, options.allowedTargets)) return null;
  return hostProblem(parsed.hostname);
}

/**
 * Why the URL names no proper host, whatever the address policy: none as written (`http:///hook`
 * and `http:hook` parse, the first path segment becoming the host), or a name with an empty label
 * (`vm..`, `a..b`, `.`, `..`) or a label over 63 characters. One trailing dot (a fully qualified
 * name, `example.com.`) is fine.
 *
 * @example malformedHostProblem("http:///hook", "hook") // "target URL has no host ..."
 */
export function malformedHostProblem(url: string, hostname: string): string | null {
  if (!/^https?:\/\/[^/\\?#]/i.test(url)) {
    return "target URL has no host: write it as http(s)://host/path";
  }
  if (hostname.startsWith("[")) return null;
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  const labels = name.split(".");
  if (labels.some((label) => label === "")) {
    return `target host ${hostname} has an empty label (a leading dot, or two dots in a row); refused`;
  }
  if (name.length > 253 || labels.some((label) => label.length > 63)) {
    return `target host ${hostname} is not a valid name (labels of at most 63 characters, 253 in all); refused`;
  }
  return null;
}

/** Why this host (an IP literal, bracketed IPv6 or a name) may not be called, or null. */
export function hostProblem(rawHostname: string): string | null {
  const hostname = rawHostname.toLowerCase().replace(/\.$/, "");
  if (hostname.startsWith("[") || hostname.includes(":")) {
    const written = hostname.replace(/^\[|\]$/g, "");
    const v6 = parseIPv6(written);
    if (v6 === null) return `target address ${rawHostname} is not a valid IPv6 address; refused`;
    const problem = ipv6Problem(v6, written);
    return problem === null ? null : `target resolves to a private address (${problem}); refused`;
  }
  const v4 = parseIPv4(hostname);
  if (v4 !== null) {
    const problem = ipv4Problem(v4);
    return problem === null ? null : `target resolves to a private address (${problem}); refused`;
  }
  return privateNameProblem(hostname);
}

/** Resolves a host name to its A and AAAA addresses (textual). Throws when it cannot answer. */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

export type ResolvedProblem = { kind: "refused"; error: string } | { kind: "unresolved"; error: string };

/**
 * targetAddressProblem, then, when `resolveHost` is given and the host is a name, the same rules
 * on every address it resolves to (any one special address refuses the call). A resolver that
 * fails is `unresolved` (worth a retry), not a refusal. Between this check and the call the name
 * can re-resolve (DNS rebinding): the platform remains the last guarantee.
 * @example await resolvedTargetProblem("https://127.0.0.1.example/", { allowPrivate: false,
 *   resolveHost: async () => ["127.0.0.1"] }) // { kind: "refused", error: "... resolves to 127.0.0.1 ..." }
 */
export async function resolvedTargetProblem(
  url: string,
  options: TargetPolicy & { resolveHost?: ResolveHost },
): Promise<ResolvedProblem | null> {
  const problem = targetAddressProblem(url, options);
  if (problem !== null) return { kind: "refused", error: problem };
  if (options.allowPrivate || options.resolveHost === undefined) return null;
  // A host named on the allow-list is let through by name, whatever it resolves to.
  if (isAllowedTarget(new URL(url), options.allowedTargets)) return null;
  const hostname = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  if (hostname.startsWith("[") || parseIPv4(hostname) !== null) return null;
  let addresses: readonly string[];
  try {
    addresses = await options.resolveHost(hostname);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: "unresolved", error: `target host ${hostname} could not be resolved: ${message}` };
  }
  // NXDOMAIN or NODATA: the platform's own resolver may still answer the name (from /etc/hosts,
  // a search domain, a split-horizon zone), and that answer is the one this check never saw.
  if (addresses.length === 0) {
    return {
      kind: "refused",
      error: `target host ${hostname} has no public address (the resolver answered no A or AAAA record); refused`,
    };
  }
  for (const address of addresses) {
    const refused = addressProblem(address);
    if (refused !== null) {
      return {
        kind: "refused",
        error: `target host ${hostname} resolves to a private address (${refused}); refused`,
      };
    }
  }
  return null;
}

/** A resolved address (textual IPv4 or IPv6) that may not be called, described; else null. */
function addressProblem(address: string): string | null {
  if (address.includes(":")) {
    const v6 = parseIPv6(address);
    return v6 === null ? `${address}, not an address` : ipv6Problem(v6, address);
  }
  const v4 = parseIPv4(address);
  return v4 === null ? `${address}, not an address` : ipv4Problem(v4);
}
