import { type CronSpec, type DayOfMonthRule, type DayOfWeekRule, valueSet } from "./fields";

/** One field of the expression: its label in messages, bounds and optional names. */
interface FieldDef {
  readonly label: string;
  readonly min: number;
  readonly max: number;
  /** Names in value order starting at `min` (JAN = 1, SUN = 0). */
  readonly names?: readonly string[];
  readonly nameKind?: string;
}

const SECOND: FieldDef = { label: "second", min: 0, max: 59 };
const MINUTE: FieldDef = { label: "minute", min: 0, max: 59 };
const HOUR: FieldDef = { label: "hour", min: 0, max: 23 };
const DAY_OF_MONTH: FieldDef = { label: "day-of-month", min: 1, max: 31 };
const MONTH: FieldDef = {
  label: "month",
  min: 1,
  max: 12,
  names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  nameKind: "month",
};
/** 0-7: both 0 and 7 are Sunday. Steps and wrapping ranges cycle over 0-6. */
const DAY_OF_WEEK: FieldDef = {
  label: "day-of-week",
  min: 0,
  max: 7,
  names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
  nameKind: "day",
};

const NICKNAMES: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

export type CronParseResult = { ok: true; spec: CronSpec } | { ok: false; issues: string[] };

/**
 * Parses a 5-field (`min hour dom mon dow`) or 6-field (seconds first) cron expression, or a
 * nickname such as `@daily`. Collects every problem instead of stopping at the first.
 *
 * @example parseCron("0 9 * * MON-FRI") // { ok: true, spec }
 * @example parseCron("61 * * * *") // { ok: false, issues: ["field minute: 61 is out of range 0-59"] }
 */
export function parseCron(expr: string): CronParseResult {
  const trimmed = expr.trim();
  let text = trimmed;
  // Quartz, QStash and some crontabs put the zone inside the expression; ours is a field of its
  // own, and a zone in two places could disagree.
  const zonePrefix = /^(CRON_TZ|TZ)=(\S*)/i.exec(trimmed);
  if (zonePrefix !== null) {
    return {
      ok: false,
      issues: [
        `a ${zonePrefix[1]}= prefix is not part of the expression: put "${zonePrefix[2]}" in schedule.timezone and the rest in schedule.expr`,
      ],
    };
  }
  if (trimmed.startsWith("@")) {
    const expanded = NICKNAMES[trimmed.toLowerCase()];
    if (expanded === undefined) {
      const known = Object.keys(NICKNAMES).join(", ");
      return { ok: false, issues: [`unknown nickname "${trimmed}" (use one of ${known})`] };
    }
    text = expanded;
  }
  const parts = text.split(/\s+/).filter((part) => part.length > 0);
  if (parts.length !== 5 && parts.length !== 6) {
    const hint = parts.length === 7 ? "; a year field is not supported" : "";
    return {
      ok: false,
      issues: [
        `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${parts.length}${hint}`,
      ],
    };
  }
  const [secondText, minuteText, hourText, domText, monthText, dowText] =
    parts.length === 6 ? parts : ["0", ...parts];
  const issues: string[] = [];
  const spec: CronSpec = {
    seconds: valueSet(parsePlainField(secondText ?? "", SECOND, issues), SECOND.max),
    minutes: valueSet(parsePlainField(minuteText ?? "", MINUTE, issues), MINUTE.max),
    hours: valueSet(parsePlainField(hourText ?? "", HOUR, issues), HOUR.max),
    months: valueSet(parsePlainField(monthText ?? "", MONTH, issues), MONTH.max),
    dayOfMonth: parseDayOfMonth(domText ?? "", issues),
    dayOfWeek: parseDayOfWeek(dowText ?? "", issues),
    daysMatchEither: isRestricted(domText ?? "") && isRestricted(dowText ?? ""),
    wildcardHour: (hourText ?? "").startsWith("*"),
  };
  return issues.length > 0 ? { ok: false, issues } : { ok: true, spec };
}

/** Vixie rule: a day field whose text starts with `*` (such as `*\/2`) or is `?` is unrestricted. */
function isRestricted(fieldText: string): boolean {
  return !fieldText.startsWith("*") && fieldText !== "?";
}

/** A field of plain values: returns allowed flags indexed by value. */
function parsePlainField(text: string, def: FieldDef, issues: string[]): boolean[] {
  const allowed: boolean[] = new Array(def.max + 1).fill(false);
  for (const item of splitItems(text, def, issues)) {
    if (item === "?") {
      issues.push(`field ${def.label}: "?" is only allowed in day-of-month and day-of-week`);
      continue;
    }
    for (const value of parseRangeItem(item, def, issues)) allowed[value] = true;
  }
  return allowed;
}

function splitItems(text: string, def: FieldDef, issues: string[]): string[] {
  const items = text.toUpperCase().split(",");
  if (items.some((item) => item.length === 0)) {
    issues.push(`field ${def.label}: empty item in list "${text}"`);
  }
  return items.filter((item) => item.length > 0);
}

function parseDayOfMonth(text: string, issues: string[]): DayOfMonthRule {
  const days: boolean[] = new Array(32).fill(false);
  const rule = {
    days,
    lastOffsets: [] as number[],
    nearestWeekdays: [] as number[],
    lastOffsetWeekdays: [] as number[],
  };
  for (const item of splitItems(text, DAY_OF_MONTH, issues)) {
    const special = /^L(?:-(\d+))?(W?)$/.exec(item);
    const weekdayOf = /^(\d+)W$/.exec(item);
    if (item === "?") days.fill(true, 1);
    else if (special) {
      const offset = special[1] === undefined ? 0 : Number(special[1]);
      if (offset > 30) issues.push(`field day-of-month: ${item} is out of range (L-1 to L-30)`);
      else (special[2] === "W" ? rule.lastOffsetWeekdays : rule.lastOffsets).push(offset);
    } else if (weekdayOf) {
      const day = parseValue(weekdayOf[1] ?? "", DAY_OF_MONTH, issues);
      if (day !== null) rule.nearestWeekdays.push(day);
    } else {
      for (const day of parseRangeItem(item, DAY_OF_MONTH, issues)) days[day] = true;
    }
  }
  return rule;
}

function parseDayOfWeek(text: string, issues: string[]): DayOfWeekRule {
  const days: boolean[] = new Array(7).fill(false);
  const rule = { days, lastOf: [] as number[], nth: [] as { weekday: number; nth: number }[] };
  for (const item of splitItems(text, DAY_OF_WEEK, issues)) {
    const last = /^(\w+)L$/.exec(item);
    const nth = /^(\w+)#(\d+)$/.exec(item);
    if (item === "?") days.fill(true);
    else if (item === "L")
      days[6] = true; // Quartz: L alone is the last day of the week, Saturday
    else if (last) {
      const day = parseValue(last[1] ?? "", DAY_OF_WEEK, issues);
      if (day !== null) rule.lastOf.push(day % 7);
    } else if (nth) {
      const day = parseValue(nth[1] ?? "", DAY_OF_WEEK, issues);
      const k = Number(nth[2]);
      if (k < 1 || k > 5) issues.push(`field day-of-week: #${nth[2]} is out of range #1-#5`);
      else if (day !== null) rule.nth.push({ weekday: day % 7, nth: k });
    } else {
      for (const day of parseRangeItem(item, DAY_OF_WEEK, issues)) days[day % 7] = true;
    }
  }
  return rule;
}

/** `*`, `a`, `a-b`, each optionally `/step`. A range whose end is before its start wraps around. */
function parseRangeItem(item: string, def: FieldDef, issues: string[]): number[] {
  const [base = "", stepText, extra] = item.split("/");
  if (extra !== undefined) {
    issues.push(`field ${def.label}: "${item}" has more than one "/"`);
    return [];
  }
  let step = 1;
  if (stepText !== undefined) {
    step = /^\d+$/.test(stepText) ? Number(stepText) : Number.NaN;
    if (!(step >= 1)) {
      issues.push(`field ${def.label}: step "${stepText}" must be a whole number of at least 1`);
      return [];
    }
  }
  // Day-of-week cycles through 0-6 (wrapped ranges like FRI-MON), but an open step `a/n` runs to
  // the field's maximum, 7, as in vixie cron: MON/2 is MON,WED,FRI,SUN (7 = Sunday).
  const cycleMax = def === DAY_OF_WEEK ? 6 : def.max;
  let start: number | null = def.min;
  let end: number | null = cycleMax;
  if (base !== "*") {
    const bounds = base.split("-");
    if (bounds.length > 2) {
      issues.push(`field ${def.label}: cannot read "${base}"`);
      return [];
    }
    start = parseValue(bounds[0] ?? "", def, issues);
    end = bounds.length === 2 ? parseValue(bounds[1] ?? "", def, issues) : stepText ? def.max : start;
  }
  if (start === null || end === null) return [];
  return rangeValues(start, end, step, def.min, cycleMax);
}

function rangeValues(start: number, end: number, step: number, min: number, cycleMax: number): number[] {
  const values: number[] = [];
  if (start <= end) {
    for (let value = start; value <= end; value += step) values.push(value);
    return values;
  }
  const size = cycleMax - min + 1;
  const first = start > cycleMax ? min : start; // day-of-week 7 as a range start is Sunday
  const length = (((end - first) % size) + size) % size;
  for (let k = 0; k <= length; k += step) values.push(min + ((first - min + k) % size));
  return values;
}

function parseValue(text: string, def: FieldDef, issues: string[]): number | null {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value >= def.min && value <= def.max) return value;
    issues.push(`field ${def.label}: ${value} is out of range ${def.min}-${def.max}`);
    return null;
  }
  if (/^[A-Z]+$/.test(text)) {
    const index = def.names?.indexOf(text) ?? -1;
    if (index >= 0) return def.min + index;
    issues.push(
      def.names
        ? `field ${def.label}: unknown ${def.nameKind} name "${text}"`
        : `field ${def.label}: "${text}" is not a number`,
    );
    return null;
  }
  issues.push(`field ${def.label}: cannot read "${text}"`);
  return null;
}
