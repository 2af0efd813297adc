// The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and their later entries),
// as data: edgecron never calls an address in any of them, whether the registry marks the block
// globally reachable or not (no webhook lives on an anycast relay or a documentation prefix).
// Sources: https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/ . Beyond the registries we also
// refuse IPv4 multicast (224.0.0.0/4, the IANA multicast space) and, in IPv6, everything outside
// 2000::/3, the only space allocated for global unicast (multicast ff00::/8, site-local fec0::/10,
// the reserved ::/8 with the deprecated IPv4-compatible ::/96 all fall there).
import { formatIPv4, parseIPv6 } from "./ip-parse";

export interface SpecialBlock {
  cidr: string;
  name: string;
  rfc: string;
}

export const IPV4_SPECIAL_BLOCKS: readonly SpecialBlock[] = [
  { cidr: "0.0.0.0/8", name: "this network", rfc: "RFC 791" },
  { cidr: "0.0.0.0/32", name: "this host on this network", rfc: "RFC 1122" },
  { cidr: "10.0.0.0/8", name: "private-use", rfc: "RFC 1918" },
  { cidr: "100.64.0.0/10", name: "shared address space (carrier-grade NAT)", rfc: "RFC 6598" },
  { cidr: "127.0.0.0/8", name: "loopback", rfc: "RFC 1122" },
  { cidr: "169.254.0.0/16", name: "link-local, cloud metadata", rfc: "RFC 3927" },
  { cidr: "172.16.0.0/12", name: "private-use", rfc: "RFC 1918" },
  { cidr: "192.0.0.0/24", name: "IETF protocol assignments", rfc: "RFC 6890" },
  { cidr: "192.0.0.0/29", name: "IPv4 service continuity prefix", rfc: "RFC 7335" },
  { cidr: "192.0.0.8/32", name: "IPv4 dummy address", rfc: "RFC 7600" },
  { cidr: "192.0.0.9/32", name: "Port Control Protocol anycast", rfc: "RFC 7723" },
  { cidr: "192.0.0.10/32", name: "TURN anycast", rfc: "RFC 8155" },
  { cidr: "192.0.0.170/32", name: "NAT64/DNS64 discovery", rfc: "RFC 8880" },
  { cidr: "192.0.0.171/32", name: "NAT64/DNS64 discovery", rfc: "RFC 8880" },
  { cidr: "192.0.2.0/24", name: "documentation (TEST-NET-1)", rfc: "RFC 5737" },
  { cidr: "192.31.196.0/24", name: "AS112-v4", rfc: "RFC 7535" },
  { cidr: "192.52.193.0/24", name: "AMT", rfc: "RFC 7450" },
  { cidr: "192.88.99.0/24", name: "deprecated 6to4 relay anycast", rfc: "RFC 7526" },
  { cidr: "192.88.99.2/32", name: "6a44 relay anycast", rfc: "RFC 6751" },
  { cidr: "192.168.0.0/16", name: "private-use", rfc: "RFC 1918" },
  { cidr: "192.175.48.0/24", name: "direct delegation AS112 service", rfc: "RFC 7534" },
  { cidr: "198.18.0.0/15", name: "benchmarking", rfc: "RFC 2544" },
  { cidr: "198.51.100.0/24", name: "documentation (TEST-NET-2)", rfc: "RFC 5737" },
  { cidr: "203.0.113.0/24", name: "documentation (TEST-NET-3)", rfc: "RFC 5737" },
  { cidr: "240.0.0.0/4", name: "reserved", rfc: "RFC 1112" },
  { cidr: "255.255.255.255/32", name: "limited broadcast", rfc: "RFC 919" },
  // Not in the special-purpose registry (it has its own): never a unicast webhook.
  { cidr: "224.0.0.0/4", name: "multicast", rfc: "RFC 5771" },
];

export const IPV6_SPECIAL_BLOCKS: readonly SpecialBlock[] = [
  { cidr: "::1/128", name: "loopback", rfc: "RFC 4291" },
  { cidr: "::/128", name: "unspecified", rfc: "RFC 4291" },
  { cidr: "::ffff:0:0/96", name: "IPv4-mapped", rfc: "RFC 4291" },
  { cidr: "64:ff9b::/96", name: "IPv4-IPv6 translation (NAT64)", rfc: "RFC 6052" },
  { cidr: "64:ff9b:1::/48", name: "IPv4-IPv6 translation, local use", rfc: "RFC 8215" },
  { cidr: "100::/64", name: "discard-only", rfc: "RFC 6666" },
  { cidr: "100:0:0:1::/64", name: "dummy IPv6 prefix", rfc: "RFC 9780" },
  { cidr: "2001::/23", name: "IETF protocol assignments", rfc: "RFC 2928" },
  { cidr: "2001::/32", name: "Teredo", rfc: "RFC 4380" },
  { cidr: "2001:1::1/128", name: "Port Control Protocol anycast", rfc: "RFC 7723" },
  { cidr: "2001:1::2/128", name: "TURN anycast", rfc: "RFC 8155" },
  { cidr: "2001:1::3/128", name: "DNS-SD service registration protocol anycast", rfc: "RFC 9665" },
  { cidr: "2001:2::/48", name: "benchmarking", rfc: "RFC 5180" },
  { cidr: "2001:3::/32", name: "AMT", rfc: "RFC 7450" },
  { cidr: "2001:4:112::/48", name: "AS112-v6", rfc: "RFC 7535" },
  { cidr: "2001:10::/28", name: "deprecated ORCHID", rfc: "RFC 4843" },
  { cidr: "2001:20::/28", name: "ORCHIDv2", rfc: "RFC 7343" },
  { cidr: "2001:30::/28", name: "drone remote ID entity tags", rfc: "RFC 9374" },
  { cidr: "2001:db8::/32", name: "documentation", rfc: "RFC 3849" },
  { cidr: "2002::/16", name: "6to4", rfc: "RFC 3056" },
  { cidr: "2620:4f:8000::/48", name: "direct delegation AS112 service", rfc: "RFC 7534" },
  { cidr: "3fff::/20", name: "documentation", rfc: "RFC 9637" },
  { cidr: "5f00::/16", name: "segment routing (SRv6) SIDs", rfc: "RFC 9602" },
  { cidr: "fc00::/7", name: "unique-local", rfc: "RFC 4193" },
  { cidr: "fe80::/10", name: "link-local", rfc: "RFC 4291" },
];

interface ParsedBlock<T> {
  base: T;
  prefixBits: number;
  block: SpecialBlock;
}

const V4_BLOCKS: readonly ParsedBlock<number>[] = IPV4_SPECIAL_BLOCKS.map((block) => {
  const [address = "", bits = "0"] = block.cidr.split("/");
  const octets = address.split(".").map(Number);
  return { base: octets.reduce((value, octet) => value * 256 + octet, 0), prefixBits: Number(bits), block };
});

const V6_BLOCKS: readonly ParsedBlock<bigint>[] = IPV6_SPECIAL_BLOCKS.map((block) => {
  const [address = "", bits = "0"] = block.cidr.split("/");
  return { base: parseIPv6(address) ?? 0n, prefixBits: Number(bits), block };
});

/** The most specific special-purpose block holding this IPv4 address, or null. */
export function specialIPv4Block(address: number): SpecialBlock | null {
  let best: ParsedBlock<number> | null = null;
  for (const entry of V4_BLOCKS) {
    const size = 2 ** (32 - entry.prefixBits);
    const inside = Math.floor(address / size) === Math.floor(entry.base / size);
    if (inside && (best === null || entry.prefixBits > best.prefixBits)) best = entry;
  }
  return best?.block ?? null;
}

/** The most specific special-purpose block holding this IPv6 address, or null. */
export function specialIPv6Block(address: bigint): SpecialBlock | null {
  let best: ParsedBlock<bigint> | null = null;
  for (const entry of V6_BLOCKS) {
    const shift = BigInt(128 - entry.prefixBits);
    if (address >> shift === entry.base >> shift && (best === null || entry.prefixBits > best.prefixBits)) {
      best = entry;
    }
  }
  return best?.block ?? null;
}

/**
 * Why an IPv4 address may not be called (a sentence fragment), or null if it may.
 * @example ipv4Problem(0xc0000201) // "192.0.2.1 is documentation (TEST-NET-1), 192.0.2.0/24"
 */
export function ipv4Problem(address: number): string | null {
  const block = specialIPv4Block(address);
  return block === null ? null : `${formatIPv4(address)} is ${block.name}, ${block.cidr}`;
}

/**
 * Why an IPv6 address may not be called, or null if it may. An IPv4 address embedded by a
 * mapping or translation prefix is named, so `::ffff:127.0.0.1` reads as loopback.
 * @example ipv6Problem(parseIPv6("64:ff9b:1::a00:1")!) // "... IPv4-IPv6 translation, local use ..."
 */
export function ipv6Problem(address: bigint, written: string): string | null {
  const block = specialIPv6Block(address);
  const embedded = embeddedIPv4(address);
  const carried = embedded === null ? "" : `; it carries ${formatIPv4(embedded)}${embeddedNote(embedded)}`;
  if (block !== null) return `${written} is ${block.name}, ${block.cidr}${carried}`;
  if (address >> 125n !== 1n) return `${written} is outside 2000::/3, the global unicast space${carried}`;
  return null;
}

function embeddedNote(v4: number): string {
  const block = specialIPv4Block(v4);
  return block === null ? "" : ` (${block.name})`;
}

/** The IPv4 address inside a mapped, compatible, NAT64, 6to4 or Teredo IPv6 address, or null. */
export function embeddedIPv4(address: bigint): number | null {
  const low32 = Number(address & 0xffffffffn);
  if (address >> 32n === 0xffffn || address >> 32n === 0n) return low32; // ::ffff:a.b.c.d, ::a.b.c.d
  if (address >> 32n === 0x64ff9b0000000000000000n) return low32; // 64:ff9b::a.b.c.d
  if (address >> 112n === 0x2002n) return Number((address >> 80n) & 0xffffffffn); // 2002:AABB:CCDD::
  if (address >> 96n === 0x20010000n) return ~low32 >>> 0; // Teredo: the client address, inverted
  return null;
}
