// A dispatch message is read in today's spelling whatever it was sent in: messages already on the
// queue when a deploy changes the format (one run per message, or the spelling before a run took
// its row's column names) are never stranded.
import { describe, expect, it } from "vitest";
import { type DispatchRun, runsOfMessage } from "../../src/shard/protocol";

const RUN: DispatchRun = {
  run_id: "run_1",
  job_id: "job_1",
  tenant_id: "ten_1",
  scheduled_at_ms: 1_800_000_000_000,
  attempt: 2,
  fence: 7,
  job_version: 3,
  fire_at_ms: 1_800_000_000_250,
  run_token: "token",
};
const LEGACY = {
  run_id: "run_1",
  job_id: "job_1",
  tenant: "ten_1",
  scheduled_at: 1_800_000_000_000,
  attempt: 2,
  fence: 7,
  version: 3,
  fire_at: 1_800_000_000_250,
  run_token: "token",
};

describe("runsOfMessage", () => {
  it("reads a bundle in today's spelling as it is", () => {
    expect(runsOfMessage({ shard: 4, runs: [RUN] })).toEqual({ shard: 4, runs: [RUN] });
  });

  it("reads a bundle and a single-run message in the earlier spelling as today's", () => {
    expect(runsOfMessage({ shard: 4, runs: [LEGACY] })).toEqual({ shard: 4, runs: [RUN] });
    expect(runsOfMessage({ shard: 4, ...LEGACY })).toEqual({ shard: 4, runs: [RUN] });
  });

  it("leaves out a fire time the message never had (sent before dispatch ahead)", () => {
    const { fire_at: _fireAt, run_token: _token, ...old } = LEGACY;
    const [run] = runsOfMessage({ shard: 0, ...old }).runs;
    expect(run).toEqual({
      run_id: "run_1",
      job_id: "job_1",
      tenant_id: "ten_1",
      scheduled_at_ms: 1_800_000_000_000,
      attempt: 2,
      fence: 7,
      job_version: 3,
    });
  });
});
