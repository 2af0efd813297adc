import { describe, expect, it } from "vitest";
import { parseRunId, runIdFor } from "../../src/core/runs/run-id";

describe("run ids", () => {
  it.each([
    ["job_01M8RV8AYNJMYDPJ5G6B10GD9G", 1_764_547_200_000],
    ["job_01M8RV8AYNJMYDPJ5G6B10GD9G", 0],
    ["job_with_underscores", 1_764_547_200_123],
  ])("names its job and instant: %s at %d", (jobId, scheduledAtMs) => {
    expect(parseRunId(runIdFor(jobId, scheduledAtMs))).toEqual({ jobId, scheduledAtMs });
  });

  it.each([
    "run_",
    "run__123",
    "run_01ABC",
    "run_01ABC_",
    "run_01ABC_12a",
    "job_01ABC_123",
    "run_01ABC_12345678901234567",
    "run_01%20ABC_123",
  ])("refuses %s, which no run can have", (runId) => {
    expect(parseRunId(runId)).toBeNull();
  });
});
