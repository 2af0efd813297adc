// Failed authentications are throttled with a 429 and `Retry-After`, keyed on an address only
// where something the client cannot forge says it (src/api/http/client-address.ts): on Cloudflare
// (a request with `cf`) its CF-Connecting-IP, behind a configured proxy that proxy's header, and
// elsewhere on one budget every caller shares. The right key is never locked out, and neither is
// the admin token by anyone who can only forge an address. The limiter counts in fixed windows of
// 60 s: a run of attempts may straddle one window's end, so each test sends up to twice the limit
// plus one before it expects the refusal (two window ends cannot fall inside one test).
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clientAddressOf, withClientAddress } from "../../src/api/http/client-address";
import worker from "../../src/index";
import { ADMIN_TOKEN, BASE, createTenantWithKey } from "../helpers/api";

const LIMIT = 20;
const MOST_ATTEMPTS = 2 * LIMIT + 1;
/** What Cloudflare's edge attaches to every request it forwards (any object will do here). */
const ON_CLOUDFLARE = { colo: "TEST" };

let addressSeq = 0;
function freshAddress(): string {
  addressSeq += 1;
  return `198.51.${Math.floor(addressSeq / 250) % 250}.${addressSeq % 250}`;
}

function wrongKeyWithPrefix(prefix: string): string {
  const hex = crypto.randomUUID().replaceAll("-", "").repeat(2);
  return `${prefix}${hex}`.slice(0, 67);
}

interface Attempt {
  token?: string | null;
  path?: string;
  headers?: Record<string, string>;
  /** Sent as on Cloudflare (with `cf`), or as a bare runtime serves it. */
  cf?: boolean;
}

async function call({ token = ADMIN_TOKEN, path = "/v1/jobs", headers = {}, cf = true }: Attempt) {
  const init: RequestInit = {
    headers: { ...headers, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
  };
  if (cf) (init as { cf?: object }).cf = ON_CLOUDFLARE;
  const res = await SELF.fetch(`${BASE}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
}

/** Sends a wrong token until the answer is 429; the number of 401s before it. */
async function failUntilThrottled(attempt: () => Attempt): Promise<number> {
  for (let sent = 0; sent < MOST_ATTEMPTS; sent++) {
    const res = await call(attempt());
    if (res.status === 429) {
      expect(res.body.code).toBe("auth_throttled");
      expect(res.headers.get("retry-after")).toBe("60");
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      return sent;
    }
    expect(res.status).toBe(401);
  }
  throw new Error(`no 429 after ${MOST_ATTEMPTS} failed attempts`);
}

const guess = () => `guess-${crypto.randomUUID()}`;
const from = (address: string) => ({ "cf-connecting-ip": address });

describe("on Cloudflare: failures are counted per client address", () => {
  it("refuses an address's guesses with 429 after 20 failures, and its next admin-token guesses unchecked", async () => {
    const address = freshAddress();
    const failures = await failUntilThrottled(() => ({ token: guess(), headers: from(address) }));
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(failures).toBeLessThanOrEqual(2 * LIMIT);
    // The right admin token from the throttled address is refused too (it is not even compared:
    // the operator's token may be weak); from any other address it works.
    expect((await call({ path: "/v1/tenants", headers: from(address) })).status).toBe(429);
    expect((await call({ path: "/v1/tenants", headers: from(freshAddress()) })).status).toBe(200);
  });

  it("never locks out the right API key, from the guessing address or for its own prefix", async () => {
    const { key } = await createTenantWithKey("throttle-right-key");
    const prefix = key.slice(0, 11);
    // Guesses at this very key's prefix, each from a new address: the prefix's bucket fills.
    await failUntilThrottled(() => ({ token: wrongKeyWithPrefix(prefix), headers: from(freshAddress()) }));
    const address = freshAddress();
    await failUntilThrottled(() => ({ token: wrongKeyWithPrefix("ek_"), headers: from(address) }));
    expect((await call({ token: key, headers: from(address) })).status).toBe(200);
  });

  it("answers a throttled QStash caller in QStash's shape with Retry-After", async () => {
    const address = freshAddress();
    await failUntilThrottled(() => ({ token: guess(), headers: from(address) }));
    const res = await call({
      path: "/v2/schedules",
      headers: { ...from(address), "edgecron-tenant": "ten_any" },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(res.body.error).toContain("failed authentications");
  });

  it("keeps answering a revoked key 401: it is a known key, not a guess", async () => {
    const { key, keyId } = await createTenantWithKey("throttle-revoked");
    const revoked = await SELF.fetch(`${BASE}/v1/api-keys/${keyId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBeLessThan(300);
    const address = freshAddress();
    for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
      const res = await call({ token: key, headers: from(address) });
      expect(res.status).toBe(401);
      expect(res.body.detail).toContain("revoked");
    }
  });

  it("does not count a request that sends no token", async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
      expect((await call({ token: null, headers: from(address) })).status).toBe(401);
    }
    expect((await call({ path: "/v1/tenants", headers: from(address) })).status).toBe(200);
  });
});

describe("where no address can be trusted, failures share one budget", () => {
  // A request without `cf` is what a bare workerd serves: its CF-Connecting-IP is the client's own.
  it("buys no guesses by rotating CF-Connecting-IP, and cannot lock the admin token out by forging an address", async () => {
    const operator = freshAddress();
    const { key } = await createTenantWithKey("throttle-no-address");
    // Every guess claims a new address, some the operator's: the shared budget still runs out.
    let sent = 0;
    await failUntilThrottled(() => ({
      token: guess(),
      cf: false,
      headers: from(sent++ % 2 === 0 ? operator : freshAddress()),
    }));
    // More guesses stay refused, whatever address they claim...
    expect((await call({ token: guess(), cf: false, headers: from(freshAddress()) })).status).toBe(429);
    // ...and the right admin token still gets in, from the operator's forged address too: no
    // forged header can decide whom the throttle refuses. So does a right API key.
    expect((await call({ path: "/v1/tenants", cf: false, headers: from(operator) })).status).toBe(200);
    expect((await call({ path: "/v1/tenants", cf: false })).status).toBe(200);
    expect((await call({ token: key, cf: false, headers: from(operator) })).status).toBe(200);
  });
});

describe("behind a proxy of the deployment's own (AUTH_CLIENT_ADDRESS = header:X-Real-IP)", () => {
  const proxied = { ...env, AUTH_CLIENT_ADDRESS: "header:X-Real-IP" } as Env;

  async function viaProxy(token: string, realIp: string, claimed: string) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}/v1/tenants`, {
        headers: { authorization: `Bearer ${token}`, "x-real-ip": realIp, ...from(claimed) },
      }),
      proxied,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    await res.body?.cancel();
    return res.status;
  }

  it("counts the proxy's address, not the one the client claims", async () => {
    const guesser = freshAddress();
    let throttled = false;
    for (let attempt = 0; attempt < MOST_ATTEMPTS && !throttled; attempt++) {
      const status = await viaProxy(guess(), guesser, freshAddress());
      expect([401, 429]).toContain(status);
      throttled = status === 429;
    }
    expect(throttled).toBe(true);
    expect(await viaProxy(ADMIN_TOKEN, guesser, freshAddress())).toBe(429);
    expect(await viaProxy(ADMIN_TOKEN, freshAddress(), guesser)).toBe(200);
  });
});

describe("clientAddressOf", () => {
  const request = (headers: Record<string, string>, cf?: typeof ON_CLOUDFLARE) =>
    new Request("https://edgecron.test/", cf === undefined ? { headers } : { headers, cf });

  it("reads CF-Connecting-IP only on a request Cloudflare forwarded", () => {
    const cloudflare = { AUTH_CLIENT_ADDRESS: "cloudflare" };
    expect(clientAddressOf(request(from("203.0.113.7"), ON_CLOUDFLARE), cloudflare)).toBe("203.0.113.7");
    expect(clientAddressOf(request(from("203.0.113.7")), cloudflare)).toBeNull();
    expect(clientAddressOf(request(from("not an address"), ON_CLOUDFLARE), cloudflare)).toBeNull();
  });

  it("reads a configured proxy header's last entry, and nothing when none is configured", () => {
    const forwarded = { AUTH_CLIENT_ADDRESS: "header:X-Forwarded-For" };
    const chain = request({ "x-forwarded-for": "10.0.0.1, 2001:DB8::1", ...from("203.0.113.7") });
    expect(clientAddressOf(chain, forwarded)).toBe("2001:db8::1");
    expect(clientAddressOf(request(from("203.0.113.7")), forwarded)).toBeNull();
    for (const setting of ["none", "", undefined, "cf-connecting-ip", "header:"]) {
      expect(
        clientAddressOf(request(from("203.0.113.7"), ON_CLOUDFLARE), { AUTH_CLIENT_ADDRESS: setting }),
      ).toBeNull();
    }
  });

  it("takes the address the console marked on its in-process call", () => {
    const inProcess = withClientAddress(request(from("203.0.113.9")), "198.51.100.1");
    expect(clientAddressOf(inProcess, { AUTH_CLIENT_ADDRESS: "none" })).toBe("198.51.100.1");
  });
});
