import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeState, type SchedulerProcess, startScheduler } from "./harness";

describe("wrangler dev as a process", () => {
  let server: SchedulerProcess;
  beforeAll(async () => {
    server = await startScheduler();
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeState(server.stateDir);
  });

  it("answers /healthz", async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
  });
});
