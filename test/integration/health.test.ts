import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("GET /healthz", () => {
  it("answers ok without auth", async () => {
    const res = await SELF.fetch("http://edgecron.test/healthz");
    expect(res.status).toBe(200);
    // tzdata: the runtime's tz database fingerprint (no override in this file).
    expect(await res.json()).toEqual({ status: "ok", tzdata: expect.stringMatching(/^intl-[0-9a-f]{12}$/) });
  });
});
