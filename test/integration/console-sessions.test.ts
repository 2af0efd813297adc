// Console sessions end: sign-out, key revocation, admin-token rotation and expiry each make the old
// cookie worthless, and the cookie never carries (or lets anyone derive) the key or the token.
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/common/encoding";
import { openConsoleSession, sweepConsoleSessions, tenantSignIn } from "../../src/service/console-sessions";
import { ADMIN_TOKEN, apiOk } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

const COOKIE = "__Host-edgecron_console";
const HOUR_MS = 3_600_000;

async function newKey(): Promise<{ id: string; key: string }> {
  return apiOk("POST", "/v1/api-keys", ADMIN_TOKEN, { tenant_id: tenantId });
}

async function jobStatus(): Promise<string> {
  return (await apiOk<{ status: string }>("GET", `/v1/jobs/${jobId}`, tenantKey)).status;
}

async function sessionRows(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM console_sessions").first<{ n: number }>();
  return row?.n ?? 0;
}

/** What an attacker holding the old cookie (and the page's CSRF token) would send to resume the job. */
async function replayResume(client: ConsoleClient, csrf: string) {
  return client.post(`/console/jobs/${jobId}/resume`, { _csrf: csrf, confirmed: "1" });
}

let tenantId: string;
let tenantKey: string;
let jobId: string;

beforeAll(async () => {
  tenantId = (await apiOk<{ id: string }>("POST", "/v1/tenants", ADMIN_TOKEN, { name: "sessions-test" })).id;
  tenantKey = (await newKey()).key;
  // Far in the future and paused at once: the tests only need a job whose resume is observable.
  jobId = (
    await apiOk<{ id: string }>("POST", "/v1/jobs", tenantKey, {
      name: "sessions-fixture",
      schedule: { type: "cron", expr: "0 3 1 1 *", timezone: "UTC" },
      target: { url: "http://127.0.0.1:9/hook" },
    })
  ).id;
});

afterAll(async () => {
  await apiOk("DELETE", `/v1/jobs/${jobId}`, tenantKey);
});

describe("console sign-out", () => {
  it("ends the session: the old cookie cannot resume a job afterwards", async () => {
    await apiOk("POST", `/v1/jobs/${jobId}/pause`, tenantKey);
    const client = new ConsoleClient();
    await client.signIn(tenantKey);
    const cookie = client.jar.get(COOKIE) ?? "";
    const csrf = await client.csrf();
    const out = await client.post("/console/logout", { _csrf: csrf });
    expect(out.status).toBe(303);

    const thief = new ConsoleClient();
    thief.jar.set(COOKIE, cookie);
    const replayed = await replayResume(thief, csrf);
    expect(replayed.status).toBe(401);
    expect(await jobStatus()).toBe("PAUSED");
    const page = await thief.get("/console/jobs");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/console\/login/);
  });
});

describe("console key revocation", () => {
  it("ends every session opened with the key, and no other", async () => {
    await apiOk("POST", `/v1/jobs/${jobId}/pause`, tenantKey);
    const revoked = await newKey();
    const [first, second, bystander] = [new ConsoleClient(), new ConsoleClient(), new ConsoleClient()];
    await first.signIn(revoked.key);
    await second.signIn(revoked.key);
    await bystander.signIn(tenantKey);
    const csrfs = [await first.csrf(), await second.csrf()];
    await apiOk("DELETE", `/v1/api-keys/${revoked.id}`, ADMIN_TOKEN);

    expect((await replayResume(first, csrfs[0] ?? "")).status).toBe(401);
    expect((await replayResume(second, csrfs[1] ?? "")).status).toBe(401);
    expect(await jobStatus()).toBe("PAUSED");
    expect((await bystander.get("/console/jobs")).status).toBe(200);
  });
});

describe("console admin-token rotation", () => {
  it("ends every admin session, and they stay ended if the old token comes back", async () => {
    await apiOk("POST", `/v1/jobs/${jobId}/pause`, tenantKey);
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    const tenantSession = new ConsoleClient();
    await tenantSession.signIn(tenantKey);
    const csrf = await admin.csrf();
    try {
      env.EDGECRON_ADMIN_TOKEN = "rotated-admin-token";
      const replayed = await admin.post(`/console/jobs/${jobId}/resume`, { _csrf: csrf, confirmed: "1" });
      expect(replayed.status).toBe(401);
      // A tenant's session is not the admin's: rotating the admin token leaves it alone.
      expect((await tenantSession.get("/console/jobs")).status).toBe(200);
    } finally {
      env.EDGECRON_ADMIN_TOKEN = ADMIN_TOKEN;
    }
    expect(await jobStatus()).toBe("PAUSED");
    const thief = new ConsoleClient();
    thief.jar.set(COOKIE, admin.jar.get(COOKIE) ?? "the cookie was cleared: keep the one sent at sign-in");
    expect((await thief.get("/console")).status).toBe(303);
  });
});

describe("console session cookie", () => {
  it("is a fresh random id that contains nothing of the key or the token", async () => {
    const cookies: string[] = [];
    for (const credential of [tenantKey, tenantKey, ADMIN_TOKEN, ADMIN_TOKEN]) {
      const client = new ConsoleClient();
      await client.signIn(credential);
      cookies.push(client.jar.get(COOKIE) ?? "");
    }
    expect(new Set(cookies).size).toBe(cookies.length);
    const secrets = [tenantKey, ADMIN_TOKEN];
    const derived = [...secrets, ...(await Promise.all(secrets.map(sha256Hex)))];
    for (const cookie of cookies) {
      expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const text of derived) {
        expect(cookie).not.toContain(text);
        expect(cookie).not.toContain(btoa(text).replace(/=+$/, ""));
      }
    }
    // D1 does not hold the cookie's id either: a copy of the table opens no session.
    const stored = await env.DB.prepare("SELECT * FROM console_sessions").all();
    const dump = JSON.stringify(stored.results);
    for (const cookie of cookies) expect(dump).not.toContain(cookie);
    for (const secret of secrets) expect(dump).not.toContain(secret);
  });
});

describe("console session expiry", () => {
  it("refuses an expired session and the maintenance pass deletes ended sessions", async () => {
    const signIn = await tenantSignIn(env, tenantKey);
    if (!signIn) throw new Error("the fixture key was not accepted");
    const expiredId = await openConsoleSession(env, signIn, Date.now() - 13 * HOUR_MS);
    const client = new ConsoleClient();
    client.jar.set(COOKIE, expiredId);
    expect((await client.get("/console")).status).toBe(303);

    const revoked = await newKey();
    const revokedSignIn = await tenantSignIn(env, revoked.key);
    if (!revokedSignIn) throw new Error("the new key was not accepted");
    await openConsoleSession(env, signIn, Date.now() - 13 * HOUR_MS);
    await openConsoleSession(env, revokedSignIn, Date.now());
    await apiOk("DELETE", `/v1/api-keys/${revoked.id}`, ADMIN_TOKEN);
    const live = await openConsoleSession(env, signIn, Date.now());
    const before = await sessionRows();

    await env.MAINTENANCE.getByName("maintenance").runNow();
    // The expired and the revoked-key sessions are gone; the live one still opens the console.
    expect(await sessionRows()).toBe(before - 2);
    expect(await sweepConsoleSessions(env, Date.now())).toBe(0);
    const liveClient = new ConsoleClient();
    liveClient.jar.set(COOKIE, live);
    expect((await liveClient.get("/console")).status).toBe(200);
  });
});
