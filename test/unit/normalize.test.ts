import { describe, expect, it } from "vitest";
import { type JobSpec, jobCreateSchema } from "../../src/core/jobs/job-spec";
import { normalizeJobSpec } from "../../src/core/jobs/normalize";

const NOW_MS = Date.parse("2026-06-01T12:00:00.000Z");

function spec(overrides: Record<string, unknown>): JobSpec {
  return jobCreateSchema.parse({
    name: "n",
    schedule: { type: "once", at: "2026-07-01T00:00:00Z" },
    target: { url: "https://example.com" },
    ...overrides,
  });
}

describe("normalizeJobSpec", () => {
  it.each([
    [
      "once+delay becomes once+at",
      { type: "once", delay: "2h" },
      {},
      { type: "once", at: "2026-06-01T14:00:00.000Z" },
    ],
    [
      "once+at is rewritten in UTC with ms",
      { type: "once", at: "2026-07-01T02:00:00+02:00" },
      {},
      { type: "once", at: "2026-07-01T00:00:00.000Z" },
    ],
    [
      "an interval without anchor is anchored now",
      { type: "interval", every: "15m" },
      {},
      { type: "interval", every: "15m", anchor: "2026-06-01T12:00:00.000Z" },
    ],
    [
      "an interval without anchor is anchored at start_at",
      { type: "interval", every: "15m" },
      { start_at: "2026-08-01T00:00:00Z" },
      { type: "interval", every: "15m", anchor: "2026-08-01T00:00:00.000Z" },
    ],
    [
      "a cron gets the default DST policy",
      { type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin" },
      {},
      { type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin", dst: { gap: "shift", overlap: "first" } },
    ],
  ])("%s", (_name, schedule, extra, expected) => {
    const result = normalizeJobSpec(spec({ schedule, ...extra }), NOW_MS);
    expect(result.ok && result.spec.schedule).toEqual(expected);
  });

  it("accepts a one-shot in the past within the misfire grace, refuses one beyond it", () => {
    const within = normalizeJobSpec(spec({ schedule: { type: "once", at: "2026-06-01T11:59:30Z" } }), NOW_MS);
    expect(within.ok).toBe(true);
    const beyond = normalizeJobSpec(spec({ schedule: { type: "once", at: "2026-06-01T11:58:00Z" } }), NOW_MS);
    expect(beyond).toEqual({ ok: false, issues: [{ path: "schedule.at", message: expect.any(String) }] });
    const longGrace = spec({
      schedule: { type: "once", at: "2026-06-01T11:58:00Z" },
      misfire: { grace: "5m" },
    });
    expect(normalizeJobSpec(longGrace, NOW_MS).ok).toBe(true);
    expect(
      normalizeJobSpec(spec({ schedule: { type: "once", at: "2020-01-01T00:00:00Z" } }), NOW_MS, {
        rejectPastOnce: false,
      }).ok,
    ).toBe(true);
  });

  it("refuses end_at before start_at", () => {
    const result = normalizeJobSpec(
      spec({ start_at: "2026-09-01T00:00:00Z", end_at: "2026-08-01T00:00:00Z" }),
      NOW_MS,
    );
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "end_at", message: "must be after start_at" }],
    });
  });

  it("is idempotent: a normalized spec normalizes to itself", () => {
    const first = normalizeJobSpec(spec({ schedule: { type: "interval", every: "1h" } }), NOW_MS);
    if (!first.ok) throw new Error("expected ok");
    expect(normalizeJobSpec(first.spec, NOW_MS + 3_600_000)).toEqual(first);
  });
});
