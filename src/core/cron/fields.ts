/** The value sets of one parsed cron expression, ready for fast matching. */

/** Allowed values of a plain numeric field, with an O(1) "next allowed value at or after v". */
export interface ValueSet {
  /** `next[v]` is the smallest allowed value >= v, or -1 past the last one. Length max + 2. */
  readonly next: Int8Array;
}

/** Day-of-month rule: plain days plus Quartz's `L`, `L-n`, `nW`, `LW` and `L-nW`. */
export interface DayOfMonthRule {
  /** `days[d]` for d in 1-31. */
  readonly days: readonly boolean[];
  /** Offsets before the last day: `L` is 0, `L-2` is 2. */
  readonly lastOffsets: readonly number[];
  /** Days whose nearest weekday fires (`15W`). */
  readonly nearestWeekdays: readonly number[];
  /** Offsets before the last day whose nearest weekday fires (`LW` is 0, `L-3W` is 3). */
  readonly lastOffsetWeekdays: readonly number[];
}

/** Day-of-week rule: plain weekdays (0 = Sunday) plus `nL` and `n#k`. */
export interface DayOfWeekRule {
  /** `days[w]` for w in 0-6. */
  readonly days: readonly boolean[];
  /** Weekdays that fire on their last occurrence in the month (`5L`). */
  readonly lastOf: readonly number[];
  /** Weekdays that fire on their k-th occurrence in the month (`MON#2`). */
  readonly nth: readonly { readonly weekday: number; readonly nth: number }[];
}

export interface CronSpec {
  readonly seconds: ValueSet;
  readonly minutes: ValueSet;
  readonly hours: ValueSet;
  readonly months: ValueSet;
  readonly dayOfMonth: DayOfMonthRule;
  readonly dayOfWeek: DayOfWeekRule;
  /** Vixie rule: when both day fields are restricted, a day matches if either matches. */
  readonly daysMatchEither: boolean;
  /** Hour field `*` or `*\/n`: the job runs on elapsed time and ignores the `dst` option. */
  readonly wildcardHour: boolean;
}

/** Builds a ValueSet from allowed flags indexed by value (index = value). */
export function valueSet(allowed: readonly boolean[], max: number): ValueSet {
  const next = new Int8Array(max + 2).fill(-1);
  let upcoming = -1;
  for (let value = max; value >= 0; value--) {
    if (allowed[value]) upcoming = value;
    next[value] = upcoming;
  }
  return { next };
}
