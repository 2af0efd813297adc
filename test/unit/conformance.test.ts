import { describe, expect, it } from "vitest";
import { cronScheduleSchema } from "../../src/core/job-spec";
import { nextFireTimes } from "../../src/core/schedule";
import vectors from "../fixtures/cron-vectors.json";

interface CronVector {
  id: string;
  schedule: {
    type: "cron";
    expr: string;
    timezone: string;
    dst?: { gap: "shift" | "skip"; overlap: "first" | "last" | "both" };
  };
  from: string;
  expected: string[];
  classification: string;
}

const all = vectors as CronVector[];
const runnable = all.filter((vector) => vector.classification !== "excluded");

describe("public cron conformance vectors (test/fixtures/cron-vectors.json)", () => {
  it("holds the 102 vectors of which 99 run", () => {
    expect(all).toHaveLength(102);
    expect(runnable).toHaveLength(99);
  });

  describe.each(runnable)("$id: $schedule.expr in $schedule.timezone from $from", (vector) => {
    it("is accepted by the schedule schema", () => {
      const parsed = cronScheduleSchema.safeParse(vector.schedule);
      expect(parsed.error?.issues ?? []).toEqual([]);
    });

    it("fires at exactly the expected instants", () => {
      const fireTimes = nextFireTimes(vector.schedule, Date.parse(vector.from), vector.expected.length);
      expect(fireTimes.map((atMs) => new Date(atMs).toISOString())).toEqual(vector.expected);
    });
  });

  it("rejects the excluded never-firing expressions (30 February, 31 April) at validation", () => {
    for (const id of ["v121", "v122"]) {
      const vector = all.find((candidate) => candidate.id === id);
      const parsed = cronScheduleSchema.safeParse(vector?.schedule);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("expression can never fire");
    }
  });
});
