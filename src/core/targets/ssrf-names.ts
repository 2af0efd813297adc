// Host names that reach "this machine", a private network or an address of the caller's
// choosing, detectable offline. This is a best-effort list: the guarantee comes from the
// platform (Cloudflare's fetch cannot reach private networks) or from resolving the name
// (ssrf.ts `resolvedTargetProblem`); see the README's SSRF paragraph.
import { formatIPv4, parseDottedQuad } from "./ip-parse";
import { specialIPv4Block } from "./special-addresses";

/** Exact names and suffixes that only ever mean this machine or an internal network. */
const PRIVATE_NAMES = new Set(["localhost", "localhost.localdomain", "metadata", "metadata.google.internal"]);
const PRIVATE_SUFFIXES = [".localhost", ".localdomain", ".internal", ".local", ".lan", ".home.arpa", ".arpa"];

/**
 * Public wildcard DNS services: every name under them resolves to loopback (localtest.me, lvh.me,
 * ...) or to whatever address the name spells (nip.io: `10.0.0.1.nip.io`, `app-7f000001.nip.io`;
 * sslip.io also spells IPv6, `--1.sslip.io` is ::1). Refused whatever the name says: a target
 * that means an address can be written as that address.
 */
const ADDRESS_ECHO_DOMAINS = [
  "nip.io",
  "sslip.io",
  "xip.io",
  "traefik.me",
  "localtest.me",
  "lvh.me",
  "vcap.me",
  "lacolhost.com",
  "fuf.me",
  "localhost.direct",
  "local.gd",
];

/**
 * Why a host name (lower case, no trailing dot, not an IP literal) may not be called, or null.
 * @example privateNameProblem("127.0.0.1.nip.io") // "... resolves to whatever address it spells ..."
 */
export function privateNameProblem(hostname: string): string | null {
  if (PRIVATE_NAMES.has(hostname) || PRIVATE_SUFFIXES.some((suffix) => hostname.endsWith(suffix))) {
    return `target host ${hostname} is a private name; refused`;
  }
  // A name of one label (`vm`, `db`, `redis`) is never a public DNS name: the host's resolver
  // answers it from /etc/hosts or a search domain, which is to say the private network.
  if (!hostname.includes(".")) {
    return `target host ${hostname} is a single-label name, which only a local resolver or search domain answers; use a fully qualified public name; refused`;
  }
  const echo = ADDRESS_ECHO_DOMAINS.find((domain) => hostname === domain || hostname.endsWith(`.${domain}`));
  if (echo !== undefined) {
    return `target host ${hostname} is under ${echo}, whose names resolve to loopback or to the address they spell; use the address itself; refused`;
  }
  const embedded = embeddedSpecialIPv4(hostname);
  if (embedded !== null) {
    return `target host ${hostname} embeds ${formatIPv4(embedded)} (${specialIPv4Block(embedded)?.name}); refused`;
  }
  return null;
}

/**
 * A special-purpose IPv4 address spelled inside a name: four dotted decimal labels
 * (`app.10.0.0.1.example`) or one label with dashes (`ip-10-0-0-1.example`), or null.
 */
function embeddedSpecialIPv4(hostname: string): number | null {
  const labels = hostname.split(".");
  for (let i = 0; i + 4 <= labels.length; i++) {
    const address = parseDottedQuad(labels.slice(i, i + 4).join("."));
    if (address !== null && specialIPv4Block(address) !== null) return address;
  }
  for (const label of labels) {
    for (const match of label.matchAll(/(?:^|[^0-9])(\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?![0-9])/g)) {
      const address = parseDottedQuad((match[1] ?? "").replaceAll("-", "."));
      if (address !== null && specialIPv4Block(address) !== null) return address;
    }
  }
  return null;
}
