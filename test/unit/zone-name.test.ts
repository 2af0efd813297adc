// Time zones are IANA names only: a fixed UTC offset is refused wherever a zone is given (the
// runtime's Intl accepts offsets, so the name check cannot lean on it), with a message that
// names the IANA form; IANA names for UTC itself stay valid.
import { describe, expect, it } from "vitest";
import { zoneNameProblem } from "../../src/core/cron/zone-name";
import { cronScheduleSchema } from "../../src/core/jobs/job-spec";
import { exclusionSetSchema } from "../../src/core/schedules/exclusions";

const OFFSETS = [
  "+05:30",
  "-08:00",
  "+0530",
  "+05",
  "-5",
  "UTC+5",
  "utc-08:00",
  "GMT+5",
  "GMT-0530",
  "\u221205:00",
];
const IANA = [
  "UTC",
  "Etc/UTC",
  "Etc/GMT-5",
  "Etc/GMT+12",
  "GMT",
  "Europe/Berlin",
  "America/Havana",
  "Asia/Kolkata",
];

describe("zoneNameProblem", () => {
  it.each(OFFSETS)("refuses the fixed offset %s, naming the IANA form", (zone) => {
    expect(zoneNameProblem(zone)).toMatch(/fixed UTC offset.*IANA name such as Asia\/Kolkata.*Etc\/GMT-5/);
  });

  it.each(IANA)("accepts the IANA name %s", (zone) => {
    expect(zoneNameProblem(zone)).toBeNull();
  });

  it("refuses an unknown name as before", () => {
    expect(zoneNameProblem("Mars/Olympus")).toMatch(
      /must be an IANA time zone such as Europe\/Berlin or UTC/,
    );
  });
});

describe("every field that takes a zone", () => {
  it.each(OFFSETS)("refuses %s in a schedule, an exclusion set and a calendar body", (zone) => {
    const schedule = cronScheduleSchema.safeParse({ type: "cron", expr: "0 9 * * *", timezone: zone });
    expect(schedule.success).toBe(false);
    expect(JSON.stringify(schedule.error?.issues)).toMatch(/fixed UTC offset/);
    const rules = exclusionSetSchema.safeParse({ timezone: zone, rules: [] });
    expect(rules.success).toBe(false);
    expect(JSON.stringify(rules.error?.issues)).toMatch(/fixed UTC offset/);
  });
});
