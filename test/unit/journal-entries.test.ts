import { describe, expect, it } from "vitest";
import type { Run } from "../../durable-objects/shard/records/run";
import { type JournalEntry, journalBodies } from "../../durable-objects/shard/state/journal-entries";

const entry = (runs: Run[]): JournalEntry => ({
  seq: 0,
  atMs: 1_000,
  fence: 7,
  page: 3,
  runs,
  gone: [["run_gone", "job_1", 500, 1]],
  settled: [],
  jobs: [],
  jobsGone: ["job_2"],
  uncounted: [],
});

// Only the size matters to the split: a run's fields are opaque to it.
const bulkyRun = (i: number) => ({ run_id: `run_${i}`, padding: "x".repeat(10_000) }) as unknown as Run;

describe("journalBodies", () => {
  it("writes an entry that fits as one row, numbered", () => {
    const bodies = journalBodies(entry([bulkyRun(1)]), 42);
    expect(bodies).toHaveLength(1);
    const parsed = JSON.parse(bodies[0] as string) as JournalEntry;
    expect(parsed.seq).toBe(42);
    expect(parsed.runs?.map((run) => run.run_id)).toEqual(["run_1"]);
    expect(parsed.gone).toEqual([["run_gone", "job_1", 500, 1]]);
  });

  it("splits an entry over ~1 MB into parts under it, numbered in order, what left in the first", () => {
    const runs = Array.from({ length: 250 }, (_, i) => bulkyRun(i));
    const bodies = journalBodies(entry(runs), 10);
    expect(bodies.length).toBeGreaterThan(2);
    const parts = bodies.map((body) => JSON.parse(body) as JournalEntry);
    for (const body of bodies) expect(body.length).toBeLessThanOrEqual(1_000_000);
    expect(parts.map((part) => part.seq)).toEqual(bodies.map((_, i) => 10 + i));
    expect(parts.flatMap((part) => part.runs ?? []).map((run) => run.run_id)).toEqual(
      runs.map((run) => run.run_id),
    );
    expect(parts[0]?.gone).toHaveLength(1);
    expect(parts[0]?.jobsGone).toEqual(["job_2"]);
    expect(parts.slice(1).every((part) => part.gone?.length === 0 && part.jobsGone?.length === 0)).toBe(true);
  });
});
