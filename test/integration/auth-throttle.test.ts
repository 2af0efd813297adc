// Failed authentications are throttled per client address and per API key prefix, with a 429 and
// `Retry-After`, and the right key is never locked out. The limiter counts in fixed windows of
// 60 s: a run of attempts may straddle one window's end, so each test sends up to twice the limit
// plus one before it expects the refusal (two window ends cannot fall inside one test).
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, api, createTenantWithKey } from "../helpers/api";

const LIMIT = 20;
const MOST_ATTEMPTS = 2 * LIMIT + 1;

let addressSeq = 0;
function freshAddress(): string {
  addressSeq += 1;
  return `198.51.100.${addressSeq}-${crypto.randomUUID().slice(0, 8)}`;
}

function wrongKeyWithPrefix(prefix: string): string {
  const hex = crypto.randomUUID().replaceAll("-", "").repeat(2);
  return `${prefix}${hex}`.slice(0, 67);
}

/** Sends a wrong token from `address` until the answer is 429; the number of 401s before it. */
async function failUntilThrottled(address: string, token: () => string): Promise<number> {
  for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
    const res = await api("GET", "/v1/jobs", { token: token(), headers: { "cf-connecting-ip": address } });
    if (res.status === 429) {
      expect(res.body.code).toBe("auth_throttled");
      expect(res.headers.get("retry-after")).toBe("60");
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      return attempt;
    }
    expect(res.status).toBe(401);
  }
  throw new Error(`no 429 after ${MOST_ATTEMPTS} failed attempts`);
}

describe("failed authentication is throttled", () => {
  it("refuses an address's guesses with 429 after 20 failures, and its next admin-token guesses unchecked", async () => {
    const address = freshAddress();
    const failures = await failUntilThrottled(address, () => `guess-${crypto.randomUUID()}`);
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(failures).toBeLessThanOrEqual(2 * LIMIT);
    // The right admin token from the throttled address is refused too (it is not even compared:
    // the operator's token may be weak); from any other address it works.
    const fromThrottled = await api("GET", "/v1/tenants", { headers: { "cf-connecting-ip": address } });
    expect(fromThrottled.status).toBe(429);
    const fromElsewhere = await api("GET", "/v1/tenants", {
      headers: { "cf-connecting-ip": freshAddress() },
    });
    expect(fromElsewhere.status).toBe(200);
  });

  it("never locks out the right API key, from the guessing address or for its own prefix", async () => {
    const { key } = await createTenantWithKey("throttle-right-key");
    const prefix = key.slice(0, 11);
    const address = freshAddress();
    // Guesses at this very key's prefix, each from a new address: the prefix's bucket fills.
    let prefixRefused = false;
    for (let attempt = 0; attempt < MOST_ATTEMPTS && !prefixRefused; attempt++) {
      const res = await api("GET", "/v1/jobs", {
        token: wrongKeyWithPrefix(prefix),
        headers: { "cf-connecting-ip": freshAddress() },
      });
      expect([401, 429]).toContain(res.status);
      prefixRefused = res.status === 429;
    }
    expect(prefixRefused).toBe(true);
    await failUntilThrottled(address, () => wrongKeyWithPrefix("ek_"));
    const rightKey = await api("GET", "/v1/jobs", { token: key, headers: { "cf-connecting-ip": address } });
    expect(rightKey.status).toBe(200);
  });

  it("answers a throttled QStash caller in QStash's shape with Retry-After", async () => {
    const address = freshAddress();
    await failUntilThrottled(address, () => `guess-${crypto.randomUUID()}`);
    const res = await api("GET", "/v2/schedules", {
      token: ADMIN_TOKEN,
      headers: { "cf-connecting-ip": address, "edgecron-tenant": "ten_any" },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
  });

  it("keeps answering a revoked key 401: it is a known key, not a guess", async () => {
    const { key, keyId } = await createTenantWithKey("throttle-revoked");
    expect((await api("DELETE", `/v1/api-keys/${keyId}`)).status).toBeLessThan(300);
    const address = freshAddress();
    for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
      const res = await api("GET", "/v1/jobs", { token: key, headers: { "cf-connecting-ip": address } });
      expect(res.status).toBe(401);
      expect(res.body.detail).toContain("revoked");
    }
  });

  it("does not count a request that sends no token", async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
      const res = await api("GET", "/v1/jobs", { token: null, headers: { "cf-connecting-ip": address } });
      expect(res.status).toBe(401);
    }
    const admin = await api("GET", "/v1/tenants", { headers: { "cf-connecting-ip": address } });
    expect(admin.status).toBe(200);
  });
});
