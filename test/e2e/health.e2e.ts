import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, apiClient } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("wrangler dev as a process", () => {
  const e2e = useScheduler({ tenant: "throttled" });

  it("answers /healthz", async () => {
    const res = await fetch(`${e2e.server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
  });

  // wrangler dev passes a client's CF-Connecting-IP through as sent, so `npm start` (and this
  // harness) trust no address: failures share one budget, whatever address a guess claims, and
  // the right admin token or API key still gets in from any address, forged or not.
  it("throttles guesses whatever address they claim, and never locks out a right token", async () => {
    const operator = "203.0.113.10";
    const statuses: number[] = [];
    let throttled: Response | null = null;
    for (let attempt = 0; attempt < 41 && throttled === null; attempt++) {
      const claimed = attempt % 2 === 0 ? operator : `198.51.100.${attempt}`;
      const res = await fetch(`${e2e.server.baseUrl}/v1/tenants`, {
        headers: { authorization: `Bearer guess-${attempt}`, "cf-connecting-ip": claimed },
      });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
      else await res.body?.cancel();
    }
    if (throttled === null) throw new Error(`no 429 among: ${statuses.join(",")}`);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(((await throttled.json()) as { code: string }).code).toBe("auth_throttled");
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    const next = await fetch(`${e2e.server.baseUrl}/v1/tenants`, {
      headers: { authorization: "Bearer guess-again", "cf-connecting-ip": "192.0.2.77" },
    });
    expect(next.status).toBe(429);
    await next.body?.cancel();
    const admin = await fetch(`${e2e.server.baseUrl}/v1/tenants`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "cf-connecting-ip": operator },
    });
    expect(admin.status).toBe(200);
    await admin.body?.cancel();
    const own = await apiClient(e2e.server.baseUrl, e2e.tenantKey)("GET", "/v1/jobs");
    expect(own.status).toBe(200);
  });
});
