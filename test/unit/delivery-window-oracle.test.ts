// Delivery windows against an independent brute force: the local clock of each instant read from
// Intl (not from the code under test), a window's next opening found by walking minute by minute.
// Hundreds of fires of several specs across DST changes in zones with 1 h, 30 min and midnight
// changes, both hemispheres and a 45-minute offset.
import { describe, expect, it } from "vitest";
import { type JobSpec, jobCreateSchema } from "../../src/core/jobs/job-spec";
import { upcomingFires } from "../../src/core/jobs/job-timeline";

const MINUTE_MS = 60_000;
const DAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Local weekday (1 = Monday), day number and minute of the day, as Intl shows them. */
function localClock(atMs: number, zone: string): { weekday: number; dayKey: string; minute: number } {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(atMs).map((part) => [part.type, part.value]));
  const weekday = DAYS.indexOf(String(parts.weekday).toUpperCase()) + 1;
  return {
    weekday,
    dayKey: `${parts.year}-${parts.month}-${parts.day}`,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

interface OracleWindow {
  zone: string;
  days: number[];
  open: number;
  close: number;
}

function oracleInside(window: OracleWindow, atMs: number): boolean {
  const { weekday, minute } = localClock(atMs, window.zone);
  const today = window.days.includes(weekday);
  if (window.open < window.close) return today && minute >= window.open && minute < window.close;
  const yesterday = window.days.includes(weekday === 1 ? 7 : weekday - 1);
  return (today && minute >= window.open) || (yesterday && minute < window.close);
}

function oracleOpening(window: OracleWindow, atMs: number): number {
  if (oracleInside(window, atMs)) return atMs;
  let minuteMs = Math.ceil(atMs / MINUTE_MS) * MINUTE_MS;
  while (!oracleInside(window, minuteMs)) minuteMs += MINUTE_MS;
  return minuteMs;
}

interface Case {
  label: string;
  zone: string;
  days?: string[];
  between: [string, string];
  schedule: Record<string, unknown>;
  from: string;
  count: number;
}

const CASES: Case[] = [
  {
    label: "New York weekdays 08-20, at :10 and :55 across spring forward",
    zone: "America/New_York",
    days: ["MON-FRI"],
    between: ["08:00", "20:00"],
    schedule: { type: "cron", expr: "10,55 * * * *", timezone: "America/New_York" },
    from: "2026-03-05T00:00:00Z",
    count: 150,
  },
  {
    label: "New York opening inside the spring-forward gap",
    zone: "America/New_York",
    between: ["02:30", "04:00"],
    schedule: { type: "interval", every: "37m", anchor: "2026-03-06T00:00:00Z" },
    from: "2026-03-06T00:00:00Z",
    count: 200,
  },
  {
    label: "New York repeated hour at fall back, window 01:30-02:00",
    zone: "America/New_York",
    between: ["01:30", "02:00"],
    schedule: { type: "interval", every: "13m", anchor: "2026-10-31T00:00:00Z" },
    from: "2026-10-31T00:00:00Z",
    count: 300,
  },
  {
    label: "Berlin overnight 22-06 on FRI-SUN across fall back",
    zone: "Europe/Berlin",
    days: ["FRI-SUN"],
    between: ["22:00", "06:00"],
    schedule: { type: "cron", expr: "15 * * * *", timezone: "Europe/Berlin" },
    from: "2026-10-20T00:00:00Z",
    count: 250,
  },
  {
    label: "Lord Howe 30-minute gap, window 02:00-03:00",
    zone: "Australia/Lord_Howe",
    between: ["02:00", "03:00"],
    schedule: { type: "interval", every: "11m", anchor: "2026-10-03T00:00:00Z" },
    from: "2026-10-03T00:00:00Z",
    count: 300,
  },
  {
    label: "Sydney (south) weekends all day across April's fall back",
    zone: "Australia/Sydney",
    days: ["SAT", "SUN"],
    between: ["00:00", "24:00"],
    schedule: { type: "cron", expr: "0 */5 * * *", timezone: "UTC" },
    from: "2026-03-25T00:00:00Z",
    count: 120,
  },
  {
    label: "Havana, midnight skipped and repeated, window 00:30-01:30",
    zone: "America/Havana",
    between: ["00:30", "01:30"],
    schedule: { type: "interval", every: "17m", anchor: "2026-03-07T00:00:00Z" },
    from: "2026-03-07T00:00:00Z",
    count: 250,
  },
  {
    label: "Havana fall back at 01:00, window 00:30-01:30",
    zone: "America/Havana",
    between: ["00:30", "01:30"],
    schedule: { type: "interval", every: "17m", anchor: "2026-10-31T00:00:00Z" },
    from: "2026-10-31T00:00:00Z",
    count: 250,
  },
  {
    label: "Kathmandu (+05:45) weekdays 09:15-17:45",
    zone: "Asia/Kathmandu",
    days: ["MON-FRI"],
    between: ["09:15", "17:45"],
    schedule: { type: "cron", expr: "*/40 * * * *", timezone: "Asia/Kathmandu" },
    from: "2026-06-01T00:00:00Z",
    count: 200,
  },
  {
    label: "Chatham (+12:45/+13:45) across its April change, window 03:00-04:00",
    zone: "Pacific/Chatham",
    between: ["02:30", "04:15"],
    schedule: { type: "interval", every: "29m", anchor: "2026-04-03T00:00:00Z" },
    from: "2026-04-03T00:00:00Z",
    count: 250,
  },
];

function minutesOf(clock: string): number {
  return Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
}

function oracleWindowOf(one: Case): OracleWindow {
  const days = new Set<number>();
  for (const day of one.days ?? ["MON-SUN"]) {
    const [from = "MON", to = from] = day.split("-");
    for (let index = DAYS.indexOf(from); ; index = (index + 1) % 7) {
      days.add(index + 1);
      if (index === DAYS.indexOf(to)) break;
    }
  }
  return {
    zone: one.zone,
    days: [...days],
    open: minutesOf(one.between[0]),
    close: minutesOf(one.between[1]),
  };
}

function specOf(one: Case, outside: "defer" | "skip", flexible: string | null): JobSpec {
  return jobCreateSchema.parse({
    name: "oracle",
    schedule: one.schedule,
    target: { url: "https://example.com/hook" },
    window: { timezone: one.zone, ...(one.days ? { days: one.days } : {}), between: one.between, outside },
    flexible_window: flexible === null ? null : { max: flexible },
  });
}

describe("delivery windows against a minute-by-minute oracle", () => {
  describe.each(CASES)("$label", (one) => {
    const window = oracleWindowOf(one);
    const fromMs = Date.parse(one.from);

    it("defer: inside fires on time, outside moves to the opening, one run per closed period", () => {
      const fires = upcomingFires(specOf(one, "defer", null), "job_oracle", fromMs, one.count + 1);
      const wrong: string[] = [];
      let deferred = 0;
      for (let index = 0; index < one.count; index++) {
        const fire = fires[index];
        const next = fires[index + 1];
        if (fire === undefined || next === undefined) throw new Error("schedule ran out");
        const at = new Date(fire.scheduledAtMs).toISOString();
        if (oracleInside(window, fire.scheduledAtMs)) {
          if (fire.excluded || fire.fireAtMs !== fire.scheduledAtMs)
            wrong.push(`${at} inside, got ${JSON.stringify(fire)}`);
          continue;
        }
        const openingMs = oracleOpening(window, fire.scheduledAtMs);
        if (next.scheduledAtMs <= openingMs) {
          if (fire.skipReason !== "outside_window_folded")
            wrong.push(`${at} should fold, got ${JSON.stringify(fire)}`);
        } else {
          deferred += 1;
          if (fire.excluded || fire.fireAtMs !== openingMs)
            wrong.push(
              `${at} should defer to ${new Date(openingMs).toISOString()}, got ${JSON.stringify(fire)}`,
            );
        }
      }
      expect(wrong).toEqual([]);
      expect(deferred).toBeGreaterThan(0);
    });

    it("skip: outside instants are skipped as outside_window", () => {
      const fires = upcomingFires(specOf(one, "skip", null), "job_oracle", fromMs, one.count);
      const wrong = fires.flatMap((fire) => {
        const inside = oracleInside(window, fire.scheduledAtMs);
        const ok = inside
          ? !fire.excluded && fire.fireAtMs === fire.scheduledAtMs
          : fire.skipReason === "outside_window";
        return ok
          ? []
          : [`${new Date(fire.scheduledAtMs).toISOString()} inside=${inside} ${JSON.stringify(fire)}`];
      });
      expect(wrong).toEqual([]);
      expect(fires.some((fire) => fire.excluded)).toBe(true);
      expect(fires.some((fire) => !fire.excluded)).toBe(true);
    });

    it("with a flexible window: every fire is inside the window, inside [instant, instant + max], in order", () => {
      const fires = upcomingFires(specOf(one, "defer", "45m"), "job_flex", fromMs, one.count);
      const wrong: string[] = [];
      let previousMs = Number.NEGATIVE_INFINITY;
      for (const fire of fires) {
        if (fire.excluded) continue;
        const at = new Date(fire.scheduledAtMs).toISOString();
        const baseMs = oracleOpening(window, fire.scheduledAtMs);
        if (!oracleInside(window, fire.fireAtMs))
          wrong.push(`${at} fires outside at ${new Date(fire.fireAtMs).toISOString()}`);
        if (fire.fireAtMs < baseMs || fire.fireAtMs > baseMs + 45 * MINUTE_MS)
          wrong.push(`${at} off its flexible window`);
        if (fire.fireAtMs <= previousMs) wrong.push(`${at} out of order`);
        previousMs = fire.fireAtMs;
      }
      expect(wrong).toEqual([]);
    });
  });
});
