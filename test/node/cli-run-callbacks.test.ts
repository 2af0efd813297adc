// `edgecron runs heartbeat` and `runs complete`, as a long-running target's shell script uses them:
// the run token instead of an API key, against a stub API that records what was sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cli } from "./cli-harness";
import { type StubServer, startStub } from "./stub-server";

const RUN_ID = "run_01JDXS3M_1764403200000";
const TOKEN = "ert1.3.1.42.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

describe("edgecron runs heartbeat / complete", () => {
  let stub: StubServer;

  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });

  it("heart-beats with --run-token and no API token", async () => {
    stub.reply(() => ({
      status: 200,
      body: { run_id: RUN_ID, attempt: 1, lease_expires_at: "2026-12-01T00:05:00.000Z" },
    }));
    const result = await cli(["runs", "heartbeat", RUN_ID, "--run-token", TOKEN, "--url", stub.url]);
    expect(result).toMatchObject({
      code: 0,
      stdout: `lease of ${RUN_ID} extended to 2026-12-01T00:05:00.000Z\n`,
    });
    expect(stub.requests[0]?.path).toBe(`/v1/runs/${RUN_ID}/heartbeat`);
    expect(stub.requests[0]?.headers["edgecron-run-token"]).toBe(TOKEN);
    expect(stub.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("reports a permanent failure with its error and result", async () => {
    stub.reply(() => ({ status: 200, body: { run_id: RUN_ID, attempt: 1, state: "DEAD_LETTERED" } }));
    const args = ["runs", "complete", RUN_ID, "--run-token", TOKEN, "--url", stub.url, "--failed"];
    const result = await cli([...args, "--error", "disk full", "--permanent", "--result", '{"written":0}']);
    expect(result).toMatchObject({ code: 0, stdout: `${RUN_ID} attempt 1: DEAD_LETTERED\n` });
    expect(stub.requests[0]?.json()).toEqual({
      status: "failed",
      result: { written: 0 },
      error: "disk full",
      retryable: false,
    });
  });

  it("refuses a missing --run-token, a --result that is not JSON and --error without --failed (exit 2)", async () => {
    const base = ["runs", "complete", RUN_ID, "--url", stub.url];
    expect(
      (await cli(["runs", "heartbeat", RUN_ID, "--url", stub.url], { EDGECRON_TOKEN: "t" })).stderr,
    ).toContain("--run-token is required");
    const notJson = await cli([...base, "--run-token", TOKEN, "--result", "{rows"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("--result must be JSON");
    const stray = await cli([...base, "--run-token", TOKEN, "--error", "x"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--error and --permanent go with --failed");
    expect(stub.requests).toHaveLength(0);
  });
});
