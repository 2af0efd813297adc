// Delivery windows' and flexible windows' rules at exact instants: validation, the gap's end as
// the opening, retries held to the opening, and the flexible spread's determinism and evenness.
import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import { upcomingFires } from "../../src/core/jobs/job-timeline";
import { compileWindow, deliveryWindowSchema, windowAdmitMs } from "../../src/core/schedules/delivery-window";
import { flexibleOffsetMs, flexibleWindowSchema } from "../../src/core/schedules/flexible-window";

function issuePaths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (result.error?.issues ?? []).map((issue) => issue.path.join("."));
}

describe("deliveryWindowSchema", () => {
  it("names every bad field", () => {
    const result = deliveryWindowSchema.safeParse({
      timezone: "Mars/Olympus",
      days: ["MON-FRY"],
      between: ["8am", "25:00"],
      outside: "later",
    });
    expect(issuePaths(result).sort()).toEqual(["between.0", "between.1", "days.0", "outside", "timezone"]);
  });

  it("refuses an empty window and an opening at 24:00, accepts overnight and whole days", () => {
    expect(issuePaths(deliveryWindowSchema.safeParse({ between: ["08:00", "08:00"] }))).toEqual(["between"]);
    expect(issuePaths(deliveryWindowSchema.safeParse({ between: ["24:00", "08:00"] }))).toEqual([
      "between.0",
    ]);
    expect(deliveryWindowSchema.parse({ between: ["22:00", "06:00"] }).outside).toBe("defer");
    expect(
      deliveryWindowSchema.safeParse({ days: ["sat", "SUN"], between: ["00:00", "24:00"] }).success,
    ).toBe(true);
  });

  it("refuses a flexible window under 1 s or over a day, and unknown fields", () => {
    expect(flexibleWindowSchema.safeParse({ max: "500ms" }).success).toBe(false);
    expect(flexibleWindowSchema.safeParse({ max: "2d" }).success).toBe(false);
    expect(flexibleWindowSchema.safeParse({ max: "15m", min: "1m" }).success).toBe(false);
    expect(flexibleWindowSchema.safeParse({ max: "15m" }).success).toBe(true);
  });
});

describe("a window opening inside a DST gap", () => {
  it("opens at the gap's end (02:30 on New York's spring-forward day opens at 03:00 EDT)", () => {
    const window = compileWindow({ between: ["02:30", "05:00"], outside: "defer" }, "America/New_York");
    // 01:00 EST on 2026-03-08 is 06:00Z; the clock jumps from 02:00 EST to 03:00 EDT at 07:00Z.
    expect(new Date(windowAdmitMs(window, Date.parse("2026-03-08T06:00:00Z"))).toISOString()).toBe(
      "2026-03-08T07:00:00.000Z",
    );
  });
});

describe("a job's window default zone", () => {
  it("is the zone of its first cron spec", () => {
    const spec = jobCreateSchema.parse({
      name: "berlin",
      schedule: { type: "cron", expr: "0 7 * * *", timezone: "Europe/Berlin" },
      target: { url: "https://example.com/hook" },
      window: { between: ["08:00", "20:00"] },
    });
    const [fire] = upcomingFires(spec, "job_1", Date.parse("2026-12-01T00:00:00Z"), 1);
    // 07:00 Berlin (06:00Z) is before the 08:00 opening (07:00Z).
    expect(fire).toEqual({
      scheduledAtMs: Date.parse("2026-12-01T06:00:00Z"),
      fireAtMs: Date.parse("2026-12-01T07:00:00Z"),
    });
  });
});

describe("flexibleOffsetMs", () => {
  it("is the same for the same job and instant, and within [0, spread]", () => {
    const atMs = Date.UTC(2026, 11, 1);
    expect(flexibleOffsetMs("job_1", atMs, 600_000)).toBe(flexibleOffsetMs("job_1", atMs, 600_000));
    for (let i = 0; i < 1_000; i++) {
      const offset = flexibleOffsetMs(`job_${i}`, atMs, 10);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThanOrEqual(10);
    }
  });

  it("spreads 10,000 jobs at one instant evenly over the window", () => {
    const atMs = Date.UTC(2027, 0, 1);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const offset = flexibleOffsetMs(`job_${i.toString(36)}`, atMs, 599_999);
      buckets[Math.floor(offset / 60_000)] = (buckets[Math.floor(offset / 60_000)] ?? 0) + 1;
    }
    // 1,000 expected per minute; a uniform spread stays well within +-15%.
    for (const count of buckets) expect(Math.abs(count - 1_000)).toBeLessThan(150);
  });
});
