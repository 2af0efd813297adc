import { describe, expect, it } from "vitest";
import { useScheduler } from "./scheduler-fixture";

describe("wrangler dev as a process", () => {
  const e2e = useScheduler();

  it("answers /healthz", async () => {
    const res = await fetch(`${e2e.server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
  });
});
