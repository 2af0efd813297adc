// A one-shot instant must be one the shard's alarm can hold: workerd keeps alarm times as int64
// nanoseconds since the epoch (they end at 2262-04-11), so `once.at` is refused from 2200 on at
// create rather than failing later at the shard push.
import { describe, expect, it } from "vitest";
import { MAX_ONCE_AT, onceScheduleSchema } from "../../src/core/jobs/job-spec";

describe("once.at is bounded", () => {
  it.each(["9999-12-31T00:00:00Z", "2262-04-12T00:00:00Z", "2200-01-01T00:00:00Z"])("refuses %s", (at) => {
    const parsed = onceScheduleSchema.safeParse({ type: "once", at });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({
        path: ["at"],
        message: expect.stringMatching(/must be before 2200-01-01T00:00:00Z/),
      }),
    ]);
  });

  it("accepts the last instant before the bound", () => {
    expect(MAX_ONCE_AT).toBe("2200-01-01T00:00:00Z");
    expect(onceScheduleSchema.safeParse({ type: "once", at: "2199-12-31T23:59:59Z" }).success).toBe(true);
  });
});
