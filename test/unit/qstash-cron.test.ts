import { describe, expect, it } from "vitest";
import { parseQstashCron } from "../../src/core/qstash/cron";

describe("parseQstashCron", () => {
  it.each([
    ["*/5 * * * *", { expr: "*/5 * * * *", timezone: "UTC" }],
    ["CRON_TZ=Europe/Berlin 0 9 * * 1-5", { expr: "0 9 * * 1-5", timezone: "Europe/Berlin" }],
    ["TZ=Asia/Kolkata 30 4 * * *", { expr: "30 4 * * *", timezone: "Asia/Kolkata" }],
    ["cron_tz=Australia/Adelaide   0 2 * * *", { expr: "0 2 * * *", timezone: "Australia/Adelaide" }],
    ["  CRON_TZ=America/New_York */10 * * * * *  ", { expr: "*/10 * * * * *", timezone: "America/New_York" }],
  ])("reads %j", (value, expected) => {
    expect(parseQstashCron(value)).toEqual({ ok: true, ...expected });
  });

  it.each([
    ["", /must hold a cron expression/],
    ["CRON_TZ=Europe/Berlin", /must hold a cron expression/],
    ["CRON_TZ=Mars/Olympus 0 9 * * *", /unknown time zone "Mars\/Olympus"/],
    ["61 * * * *", /minute: 61 is out of range/],
    ["0 0 30 2 *", /can never fire/],
  ])("refuses %j, saying why", (value, message) => {
    const parsed = parseQstashCron(value);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.issues.join("; ")).toMatch(message);
  });
});
