// A start/end window the schedule never fires in is refused at create and edit, like a cron that
// never fires; the bounds are inclusive, as the shard applies them.
import { describe, expect, it } from "vitest";
import { type JobSpec, jobCreateSchema } from "../../src/core/jobs/job-spec";
import { normalizeJobSpec } from "../../src/core/jobs/normalize";

const NOW_MS = Date.parse("2026-06-01T12:00:00.000Z");

function check(fields: Record<string, unknown>) {
  const spec: JobSpec = jobCreateSchema.parse({
    name: "n",
    target: { url: "https://example.com" },
    ...fields,
  });
  return normalizeJobSpec(spec, NOW_MS);
}

const DAILY_9_BERLIN = { type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin" };

describe("the start/end window", () => {
  it.each([
    [
      "a daily 09:00 cron in a window from 10:00 to 11:00",
      {
        schedule: DAILY_9_BERLIN,
        start_at: "2026-07-01T10:00:00+02:00",
        end_at: "2026-07-01T11:00:00+02:00",
      },
      "end_at",
      /never fires between start_at and end_at \(next after start_at: 2026-07-02T07:00:00\.000Z\)/,
    ],
    [
      "an interval whose next instant after start_at is past end_at",
      {
        schedule: { type: "interval", every: "1h", anchor: "2026-07-01T00:30:00Z" },
        start_at: "2026-07-01T00:31:00Z",
        end_at: "2026-07-01T01:29:59.999Z",
      },
      "end_at",
      /never fires/,
    ],
    [
      "a one-shot before start_at",
      { schedule: { type: "once", at: "2026-07-01T00:00:00Z" }, start_at: "2026-07-02T00:00:00Z" },
      "start_at",
      /never fires at or after start_at/,
    ],
    [
      "a one-shot after end_at",
      {
        schedule: { type: "once", at: "2026-07-03T00:00:00Z" },
        start_at: "2026-07-01T00:00:00Z",
        end_at: "2026-07-02T00:00:00Z",
      },
      "end_at",
      /never fires/,
    ],
    [
      "a Feb 29 cron in a window without one",
      {
        schedule: { type: "cron", expr: "0 0 29 2 *", timezone: "UTC" },
        start_at: "2027-03-01T00:00:00Z",
        end_at: "2028-02-28T00:00:00Z",
      },
      "end_at",
      /2028-02-29T00:00:00\.000Z/,
    ],
    [
      "an end_at equal to start_at (nothing after the start)",
      { schedule: DAILY_9_BERLIN, start_at: "2026-07-01T09:00:00+02:00", end_at: "2026-07-01T07:00:00Z" },
      "end_at",
      /must be after start_at/,
    ],
    [
      "an end_at before start_at",
      { schedule: DAILY_9_BERLIN, start_at: "2026-07-02T00:00:00Z", end_at: "2026-07-01T00:00:00Z" },
      "end_at",
      /must be after start_at/,
    ],
  ])("refuses %s", (_label, fields, path, message) => {
    const result = check(fields);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it.each([
    [
      "a fire exactly at start_at",
      {
        schedule: DAILY_9_BERLIN,
        start_at: "2026-07-01T09:00:00+02:00",
        end_at: "2026-07-01T09:30:00+02:00",
      },
    ],
    [
      "a fire exactly at end_at",
      {
        schedule: DAILY_9_BERLIN,
        start_at: "2026-07-01T08:00:00+02:00",
        end_at: "2026-07-01T09:00:00+02:00",
      },
    ],
    [
      "an interval anchored at start_at by default",
      {
        schedule: { type: "interval", every: "1h" },
        start_at: "2026-07-01T00:00:00Z",
        end_at: "2026-07-01T00:30:00Z",
      },
    ],
    [
      "a window in the past (editing an old job is not refused for it)",
      { schedule: DAILY_9_BERLIN, start_at: "2020-01-01T00:00:00Z", end_at: "2020-01-02T00:00:00Z" },
    ],
    ["no start_at", { schedule: DAILY_9_BERLIN, end_at: "2026-07-01T00:00:00Z" }],
  ])("accepts %s", (_label, fields) => {
    expect(check(fields).ok).toBe(true);
  });
});
