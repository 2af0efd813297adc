/**
 * Server-side request forgery rules for target URLs, applied at job create and again at call
 * time (a job stored before a rule existed, or a URL smuggled past the API, is still refused).
 *
 * Limits, on purpose: this checks the URL as written, not what a DNS name resolves to. A
 * Worker has no DNS API to pin a resolution, and a name could re-resolve between check and
 * call anyway. Production Workers cannot reach private networks or the host's loopback at
 * all, so the residual risk is local development (`wrangler dev`), where `allowPrivate` is on.
 */

/** Thrown by the target call when a URL is refused; classified as a permanent failure. */
export class TargetRefusedError extends Error {
  override readonly name = "TargetRefusedError";
}

/** IPv4 ranges we never call, with the reason a user sees. */
const PRIVATE_V4_RANGES: readonly { cidr: string; label: string }[] = [
  { cidr: "0.0.0.0/8", label: "this-network" },
  { cidr: "10.0.0.0/8", label: "private" },
  { cidr: "100.64.0.0/10", label: "carrier-grade NAT" },
  { cidr: "127.0.0.0/8", label: "loopback" },
  { cidr: "169.254.0.0/16", label: "link-local, cloud metadata" },
  { cidr: "172.16.0.0/12", label: "private" },
  { cidr: "192.0.0.0/24", label: "IETF protocol assignments" },
  { cidr: "192.168.0.0/16", label: "private" },
  { cidr: "198.18.0.0/15", label: "benchmarking" },
  { cidr: "224.0.0.0/4", label: "multicast" },
  { cidr: "240.0.0.0/4", label: "reserved, broadcast" },
];

const PARSED_V4_RANGES = PRIVATE_V4_RANGES.map(({ cidr, label }) => {
  const [address = "", bits = "0"] = cidr.split("/");
  const prefixBits = Number(bits);
  const mask = prefixBits === 0 ? 0 : (~0 << (32 - prefixBits)) >>> 0;
  // `>>> 0` keeps both sides unsigned: `&` yields a signed int32 for addresses >= 128.0.0.0.
  return { base: ((parseDottedV4(address) ?? 0) & mask) >>> 0, mask, label };
});

/** Host names that only ever mean "this machine" or "the provider's internal network". */
const PRIVATE_NAME_SUFFIXES = [".localhost", ".internal", ".local", ".home.arpa"];
const PRIVATE_NAMES = new Set(["localhost", "metadata.google.internal", "metadata"]);

/**
 * Why a target URL may not be called, or null if it may. Refuses non-http(s) schemes and
 * credentials in the URL always; unless `allowPrivate`, also loopback, private, link-local
 * (cloud metadata 169.254.169.254), CGNAT, multicast and reserved addresses in IPv4 and IPv6
 * (including IPv4-mapped, NAT64 and 6to4 forms), and names such as `localhost`, `*.internal`.
 *
 * IPv4 written as one integer, in octal or hex (`http://2130706433/`, `http://0x7f.1/`) is
 * normalized to dotted form by the WHATWG URL parser before we look at it.
 *
 * @example targetAddressProblem("http://127.0.0.1:8080/hook", { allowPrivate: false })
 * // -> "target resolves to a private address (127.0.0.1, loopback); refused"
 */
export function targetAddressProblem(url: string, options: { allowPrivate: boolean }): string | null {
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
  if (options.allowPrivate) return null;
  return hostProblem(parsed.hostname);
}

function hostProblem(rawHostname: string): string | null {
  const hostname = rawHostname.toLowerCase().replace(/\.$/, "");
  if (hostname.startsWith("[")) {
    const groups = parseIPv6(hostname.slice(1, -1));
    if (groups === null) return `target address ${rawHostname} is not a valid IPv6 address; refused`;
    const label = privateV6Label(groups);
    return label === null ? null : refusal(rawHostname, label);
  }
  const v4 = parseDottedV4(hostname);
  if (v4 !== null) {
    const label = privateV4Label(v4);
    return label === null ? null : refusal(hostname, label);
  }
  if (PRIVATE_NAMES.has(hostname) || PRIVATE_NAME_SUFFIXES.some((suffix) => hostname.endsWith(suffix))) {
    return `target host ${hostname} is a private name; refused`;
  }
  return null;
}

function refusal(address: string, label: string): string {
  return `target resolves to a private address (${address}, ${label}); refused`;
}

function privateV4Label(address: number): string | null {
  for (const range of PARSED_V4_RANGES) {
    if ((address & range.mask) >>> 0 === range.base) return range.label;
  }
  return null;
}

/** `groups` holds the eight 16-bit groups of an IPv6 address. */
function privateV6Label(groups: readonly number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embeddedV4 = ((g6 << 16) | g7) >>> 0;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified";
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  // ::ffff:a.b.c.d (IPv4-mapped) and the deprecated ::a.b.c.d (IPv4-compatible).
  if (upperZero && (g5 === 0xffff || g5 === 0)) return embeddedLabel(embeddedV4);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix).
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embeddedLabel(embeddedV4);
  }
  // 2002:AABB:CCDD::/48 (6to4) carries a.b.c.d in groups 1 and 2.
  if (g0 === 0x2002) return embeddedLabel(((g1 << 16) | g2) >>> 0);
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  return null;
}

function embeddedLabel(v4: number): string | null {
  const label = privateV4Label(v4);
  return label === null ? null : `embeds ${formatV4(v4)}, ${label}`;
}

/** Parses strict dotted-quad IPv4 (what the URL parser emits) into an unsigned 32-bit number. */
function parseDottedV4(text: string): number | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  let value = 0;
  for (const part of match.slice(1)) {
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

function formatV4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/** Parses an IPv6 address (with `::` and an optional dotted IPv4 tail) into 8 groups. */
function parseIPv6(text: string): number[] | null {
  const zoneless = text.split("%")[0] ?? "";
  let body = zoneless;
  let tail: number[] = [];
  const v4Match = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(zoneless);
  if (v4Match) {
    const v4 = parseDottedV4(v4Match[2] ?? "");
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    body = (v4Match[1] ?? "").endsWith("::") ? (v4Match[1] ?? "") : (v4Match[1] ?? "").slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (part: string | undefined): number[] | null => {
    if (part === undefined || part === "") return [];
    const groups: number[] = [];
    for (const group of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0]);
  const rest = parseGroups(halves[1]);
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 1) return explicit === 8 ? [...head, ...tail] : null;
  if (explicit > 7) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
}
