// The capacity model (`npm run simulate`): run on a fixed bench fixture, its table of published
// limits must cover every limit the design is held to, at the average, peak and midnight burst,
// and never put our load over a limit that cannot be raised.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(ROOT, "test", "fixtures", "bench-simulate.json");

interface Cell {
  load: number;
  headroom: number | null;
  status: "ok" | "raise" | "over";
}
interface Row {
  limit: string;
  value: number;
  kind: "hard" | "raise";
  at: Record<string, Cell>;
  status: "ok" | "raise" | "over";
}
interface Simulation {
  load: { avg: number; peak: number; burst: number };
  plan: {
    shards: { recommended: number };
    limit_increases: string[];
    limits: { scenarios: string[]; rows: Row[]; p99_ms: Record<string, number> };
    lateness: { pipeline_ms: number };
    lane: { chosen: string; queues_lane: { p99_ms: Record<string, number> } };
  };
}

function simulate(...args: string[]): string {
  return execFileSync(process.execPath, [join(ROOT, "bench", "simulate.mjs"), "--input", FIXTURE, ...args], {
    encoding: "utf8",
  });
}

const simulation = (...args: string[]) => JSON.parse(simulate("--json", ...args)) as Simulation;

/** The limits the design is checked against (Cloudflare's published pages, issue list). */
const REQUIRED = [
  "Queues: messages/s per queue",
  "Queues: concurrent consumer invocations per queue",
  "Queues: messages per sendBatch",
  "Queues: bytes per sendBatch",
  "Queues: message size",
  "Queues: delaySeconds",
  "Durable Objects: requests/s per object (soft)",
  "Durable Objects: storage per object",
  "D1: storage per database",
  "Workers: simultaneous outgoing connections",
  "Workers: subrequests per invocation",
  "Analytics Engine: data points per invocation",
];

describe("npm run simulate", () => {
  const result = simulation();
  const table = result.plan.limits;

  it("covers every published limit at the average, peak and midnight burst", () => {
    expect(table.scenarios).toEqual(["average", "peak", "burst"]);
    expect([result.load.avg, result.load.peak, result.load.burst]).toEqual([8_300, 50_000, 333_000]);
    expect(table.rows.map((row) => row.limit)).toEqual(expect.arrayContaining(REQUIRED));
    for (const row of table.rows) {
      for (const scenario of table.scenarios) {
        const cell = row.at[scenario] as Cell;
        expect(Number.isFinite(cell.load) && cell.load >= 0, `${row.limit} at ${scenario}`).toBe(true);
        if (cell.load > 0) expect(cell.headroom).toBeCloseTo(row.value / cell.load, 6);
      }
    }
  });

  it("puts nothing over a limit that cannot be raised, and names every raise it needs", () => {
    for (const row of table.rows) {
      if (row.kind === "hard") expect(row.status, row.limit).not.toBe("over");
    }
    const raised = table.rows.filter((row) => row.status === "raise").map((row) => row.limit);
    expect(result.plan.limit_increases.map((line) => line.split(":").slice(0, 2).join(":"))).toEqual(raised);
  });

  it("needs no limit raised: the tenant views ask only the tenant's shards", () => {
    expect(result.plan.limit_increases).toEqual([]);
    const subrequests = table.rows.find((row) => row.limit === "Workers: subrequests per invocation");
    expect(subrequests?.at.burst?.load).toBe(2 * result.plan.shards.recommended + 10);
  });

  it("predicts p99 under 1 s at the average, the peak and the burst on the lane it chose", () => {
    for (const scenario of table.scenarios) expect(table.p99_ms[scenario]).toBeLessThan(1_000);
    expect(result.plan.lane.chosen).toBe("pool");
    // the decision's reason: Queues sized for latency still misses the burst while consumers ramp
    expect(result.plan.lane.queues_lane.p99_ms.burst).toBeGreaterThan(1_000);
  });

  it("prints the cost per million runs beside QStash and EventBridge Scheduler", () => {
    const text = simulate();
    expect(text).toMatch(/cost per million runs at list prices/);
    for (const line of ["Durable Objects duration", "Queues operations", "D1 rows", "KV", "Workers CPU"]) {
      expect(text).toContain(line);
    }
    expect(text).toMatch(/QStash, pay as you go .*\$10\.00/);
    expect(text).toMatch(/EventBridge Scheduler .*\$1\.00/);
  });

  it("flags a layout that breaks a hard limit: 256 shards cannot hold 30 days of history", () => {
    const small = simulation("--shards", "256");
    const storage = small.plan.limits.rows.find((row) => row.limit === "Durable Objects: storage per object");
    expect(storage?.status).toBe("over");
  });

  it("prints the table with every scenario and the p99 line", () => {
    const text = simulate();
    expect(text).toContain("published limits vs our load (average 8,300/s, peak 50,000/s, burst 333,000/s)");
    expect(text).toMatch(/predicted p99 lateness\s+\|/);
    for (const limit of REQUIRED) expect(text).toContain(limit);
  });
});

describe("npm run simulate with a share of the midnight jobs on a flexible window", () => {
  it("sizes the plan for the spread burst and prints the line that says so", () => {
    const nominal = simulation();
    const spread = simulation("--flexible-share", "0.5", "--flexible-max-s", "900") as Simulation & {
      flexible_burst: { peak_per_s: number; nominal_per_s: number; spread_seconds: number };
    };
    // Half stay in the 60 s box (166,500/s); half spread over 900 s (11,100/s at most).
    expect(spread.flexible_burst).toMatchObject({
      nominal_per_s: 333_000,
      peak_per_s: 177_600,
      spread_seconds: 960,
    });
    expect(spread.load.burst).toBe(177_600);
    expect(spread.plan.shards.recommended).toBeLessThanOrEqual(nominal.plan.shards.recommended);
    expect(simulate("--flexible-share", "1", "--flexible-max-s", "600")).toContain(
      "midnight burst with 100 % of its jobs on flexible_window {max: 600s}: 333,000/s for 60 s becomes at most 33,300/s",
    );
  });
});
