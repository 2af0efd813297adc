import type { EdgecronError } from "../core/common/errors";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A ULID-like id: `prefix_` + 10 chars of millisecond time + 16 random chars, all Crockford
 * base32, so ids sort by creation time (lists order newest first by id).
 * `newId("job", 0)` -> "job_0000000000XXXXXXXXXXXXXXXX".
 */
export function newId(prefix: string, nowMs: number): string {
  let time = "";
  let remaining = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD.charAt(remaining % 32) + time;
    remaining = Math.floor(remaining / 32);
  }
  const random = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    CROCKFORD.charAt(byte % 32),
  ).join("");
  return `${prefix}_${time}${random}`;
}

const OWN_ID = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Ids minted elsewhere (runs by shards, dead letters by consumers): a conservative alphabet. */
const FOREIGN_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * A path id that does not look like one of ours is simply not found (never a 500). The error is
 * built only when thrown: an error captures a stack, and every DELETE paid for one it never threw.
 */
export function requireOwnId(
  value: string | undefined,
  prefix: string,
  notFound: () => EdgecronError,
): string {
  if (value === undefined || !value.startsWith(`${prefix}_`) || !OWN_ID.test(value)) throw notFound();
  return value;
}

export function requireForeignId(value: string | undefined, notFound: () => EdgecronError): string {
  if (value === undefined || !FOREIGN_ID.test(value)) throw notFound();
  return value;
}
