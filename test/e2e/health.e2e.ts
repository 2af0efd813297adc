import { describe, expect, it } from "vitest";
import { apiClient } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("wrangler dev as a process", () => {
  const e2e = useScheduler({ tenant: "throttled" });

  it("answers /healthz", async () => {
    const res = await fetch(`${e2e.server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
  });

  // The dev server reports the socket's address as CF-Connecting-IP (on Cloudflare the edge always
  // sets it), and its rate limiter counts the failures: guesses from here slow to 20 a minute.
  it("throttles guesses from the caller's address, never the right API key", async () => {
    const statuses: number[] = [];
    let throttled: Response | null = null;
    for (let attempt = 0; attempt < 41 && throttled === null; attempt++) {
      const res = await fetch(`${e2e.server.baseUrl}/v1/tenants`, {
        headers: { authorization: `Bearer guess-${attempt}` },
      });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
      else await res.body?.cancel();
    }
    if (throttled === null) throw new Error(`no 429 among: ${statuses.join(",")}`);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(((await throttled.json()) as { code: string }).code).toBe("auth_throttled");
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    const own = await apiClient(e2e.server.baseUrl, e2e.tenantKey)("GET", "/v1/jobs");
    expect(own.status).toBe(200);
  });
});
