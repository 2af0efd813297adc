// Which time-zone rules the runtime has. Fire times come from the runtime's tz database (Intl,
// through luxon); a deploy can bring new rules (a government moved its offsets) and timers the
// shards computed with the old ones are then wrong. workerd exposes no tzdata version string
// (`process.versions.tz` is empty there), so the version is a fingerprint of the rules themselves:
// the UTC offset of every zone at fixed sample instants. Pure: the offsets are passed in.

/** What the fingerprint reads: the zones the runtime knows and their offsets. */
export interface TzdataSource {
  readonly zones: readonly string[];
  /** The zone's UTC offset at an instant, in minutes (east positive). */
  offsetMinutes(zone: string, atMs: number): number;
  /** A version string the runtime exposes (Node's `process.versions.tz`), or null. */
  readonly runtimeVersion: string | null;
}

/**
 * First and last year sampled: the years stored timers fall in (a timer is a job's next fire,
 * rarely more than months ahead). Fixed rather than relative to now, so the fingerprint does not
 * change on New Year's Day; move the window forward in a release well before it runs out.
 */
const FIRST_SAMPLE_YEAR = 2026;
const LAST_SAMPLE_YEAR = 2031;
/**
 * Sample days each year (month 0-11, day): mid-winter and mid-summer catch a new standard offset
 * or DST gained or lost; 1 April and 1 November sit near the usual ends of DST (the south's in
 * early April, the north's from late October to early November), so a season made weeks longer or
 * shorter there changes the offset sampled. A change to a transition day
 * that none of these straddle goes unseen: the fingerprint trades that for its cost (10,000
 * offsets, 60-170 ms of CPU once per isolate, measured in local workerd).
 */
const SAMPLE_DAYS: readonly (readonly [month: number, day: number])[] = [
  [0, 15],
  [3, 1],
  [6, 15],
  [10, 1],
];

/** The fixed instants (noon UTC) at which every zone's offset is sampled. */
export function tzdataSampleInstantsMs(): number[] {
  const instants: number[] = [];
  for (let year = FIRST_SAMPLE_YEAR; year <= LAST_SAMPLE_YEAR; year += 1) {
    for (const [month, day] of SAMPLE_DAYS) instants.push(Date.UTC(year, month, day, 12));
  }
  return instants;
}

/**
 * A short stable string naming the runtime's time-zone rules: equal rules give equal strings,
 * a rule change in any sampled zone and instant gives another one.
 *
 * @example tzdataFingerprint({ zones: ["UTC"], offsetMinutes: () => 0, runtimeVersion: null })
 * // "intl-1f0c2e3d4a5b" (12 hex digits); with runtimeVersion "2025c": "2025c+intl-..."
 */
export function tzdataFingerprint(
  source: TzdataSource,
  sampleInstantsMs: readonly number[] = tzdataSampleInstantsMs(),
): string {
  const hash = new Hash53();
  for (const zone of [...source.zones].sort()) {
    hash.add(zone);
    for (const atMs of sampleInstantsMs) hash.add(String(source.offsetMinutes(zone, atMs)));
  }
  const fingerprint = `intl-${hash.hex()}`;
  return source.runtimeVersion ? `${source.runtimeVersion}+${fingerprint}` : fingerprint;
}

/** cyrb53-style string hash: 53 bits, fast, not cryptographic (collisions only cost a re-derive). */
class Hash53 {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  add(text: string): void {
    for (let index = 0; index < text.length; index += 1) this.mix(text.charCodeAt(index));
    this.mix(0x1f); // a separator, so ["ab","c"] and ["a","bc"] differ
  }

  hex(): string {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    h1 ^= Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    let h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
    return value.toString(16).padStart(14, "0").slice(-12);
  }

  private mix(code: number): void {
    this.h1 = Math.imul(this.h1 ^ code, 2654435761);
    this.h2 = Math.imul(this.h2 ^ code, 1597334677);
  }
}
