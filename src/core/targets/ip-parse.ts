// Textual IP address parsing for the SSRF policy: every form a URL host, a resolver answer or a
// name embedding an address can take. Pure; no platform APIs.

/**
 * Parses IPv4 in every form inet_aton and the WHATWG URL parser accept: dotted quads, fewer parts
 * (`127.1` = 127.0.0.1, `10.1.2` = 10.1.0.2), one integer (`2130706433`), and decimal, octal
 * (`0177`) or hex (`0x7f`) parts, each mixed freely. Returns the unsigned 32-bit value, or null.
 * @example parseIPv4("0x7f.1") // 2130706433
 */
export function parseIPv4(text: string): number | null {
  const parts = text.endsWith(".") ? text.slice(0, -1).split(".") : text.split(".");
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === null) return null;
    numbers.push(value);
  }
  const last = numbers.pop() ?? 0;
  if (numbers.some((value) => value > 255)) return null;
  // The last part fills every byte the earlier parts left: 2^(8 * (5 - count)) possible values.
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = 0;
  for (const [index, octet] of numbers.entries()) value += octet * 256 ** (3 - index);
  return value + last;
}

function parseIPv4Part(part: string): number | null {
  if (part === "") return null;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0; // "0x" alone is zero, as in the URL standard.
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return null;
  const value = Number.parseInt(digits, radix);
  return Number.isSafeInteger(value) && value <= 0xffffffff ? value : null;
}

/** Strict dotted-quad decimal only (`10.0.0.1`): what counts as an address embedded in a name. */
export function parseDottedQuad(text: string): number | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  return octets.reduce((value, octet) => value * 256 + octet, 0);
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/**
 * Parses an IPv6 address (with `::`, an optional dotted IPv4 tail and an optional `%zone`,
 * without brackets) into its 128-bit value, or null.
 * @example parseIPv6("::ffff:127.0.0.1") // 0xffff7f000001n
 */
export function parseIPv6(text: string): bigint | null {
  const zoneless = text.split("%")[0] ?? "";
  let body = zoneless;
  let tail: number[] = [];
  const v4Match = /^(.*:)([^:]*\.[^:]*)$/.exec(zoneless);
  if (v4Match) {
    const v4 = parseDottedQuad(v4Match[2] ?? "");
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    const head = v4Match[1] ?? "";
    body = head.endsWith("::") ? head : head.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const head = hexGroups(halves[0]);
  const rest = hexGroups(halves[1]);
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 1) {
    if (explicit !== 8) return null;
    groups = [...head, ...tail];
  } else {
    if (explicit > 7) return null;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function hexGroups(part: string | undefined): number[] | null {
  if (part === undefined || part === "") return [];
  const groups: number[] = [];
  for (const group of part.split(":")) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}
