// What counts as a time zone name: the IANA database's, nothing else. The runtime's Intl (and so
// luxon's IANAZone.isValidZone) also takes fixed UTC offsets such as "+05:30" in some runtimes,
// which would silently drop the zone's DST rules; they are refused by shape first.
import { IANAZone } from "luxon";

/** "+05:30", "-0800", "+05", "UTC+5", "GMT-05:30", with an ASCII or Unicode minus. */
const FIXED_OFFSET = /^(?:utc|gmt|ut|z)?\s*[+\-\u2212]\s*\d{1,2}(?::?\d{2})?$/i;

/**
 * Why `timezone` is not an IANA time zone name, or null when it is. `UTC`, `GMT` and the `Etc/*`
 * names are IANA names and stay valid.
 * @example zoneNameProblem("Europe/Berlin") // null
 * @example zoneNameProblem("+05:30") // '"+05:30" is a fixed UTC offset, not a time zone: ...'
 */
export function zoneNameProblem(timezone: string): string | null {
  const offset = fixedOffsetProblem(timezone);
  if (offset !== null) return offset;
  if (!IANAZone.isValidZone(timezone)) return "must be an IANA time zone such as Europe/Berlin or UTC";
  return null;
}

/** The message for a fixed UTC offset given as a zone, or null when `timezone` is not one. */
export function fixedOffsetProblem(timezone: string): string | null {
  if (FIXED_OFFSET.test(timezone.trim())) {
    return `"${timezone}" is a fixed UTC offset, not a time zone: use an IANA name such as Asia/Kolkata or America/Los_Angeles (its DST rules included), or Etc/GMT-5 for a fixed UTC+5 (the Etc sign is reversed)`;
  }
  return null;
}
