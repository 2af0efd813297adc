// The bad-input generator: every route of docs/API.md crossed with what can be wrong with a
// request (auth, path id, query, content type, size, JSON, fields). Deterministic: all choices
// come from a seeded PRNG, so a failure names a case that replays exactly.

import { type Json, validJob } from "./bad-input-bodies";
import { bodyCases } from "./bad-input-body-cases";

/** mulberry32: a small seeded PRNG with a full 2^32 period; enough to pick and shuffle. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Fixtures {
  adminToken: string;
  /** Tenant T and its key; the job, run, dead letter and key ids below are T's. */
  tenantId: string;
  key: string;
  keyId: string;
  /** Another tenant's key, and a revoked key. */
  otherKey: string;
  revokedKey: string;
  jobId: string;
  runId: string;
  deadLetterId: string;
  targetUrl: string;
}

export interface BadRequest {
  label: string;
  method: string;
  path: string;
  /** The Authorization header value; null sends none. */
  authorization: string | null;
  headers?: Record<string, string>;
  /** Raw body bytes or text; sent with `content-type: application/json` unless headers say otherwise. */
  body?: string | Uint8Array;
  expectStatus?: number;
  /** A path (or path prefix) that errors[] must name. */
  expectPath?: string;
}

type Scope = "any" | "admin" | "tenant";
export interface Route {
  method: string;
  /** With `{id}` where a path id goes. */
  template: string;
  id?: string;
  scope: Scope;
  /** A body the route would accept: bad auth or a bad id must refuse even this. */
  body?: Json;
}

function routes(f: Fixtures): Route[] {
  const job = validJob(`${f.targetUrl}/ok/bad-input`);
  const backfill = { from: "2026-01-01T00:00:00Z", to: "2026-01-05T00:00:00Z" };
  return [
    { method: "GET", template: "/v1/me", scope: "any" },
    { method: "POST", template: "/v1/tenants", scope: "admin", body: { name: "nope" } },
    { method: "GET", template: "/v1/tenants", scope: "admin" },
    { method: "GET", template: "/v1/tenants/{id}", id: f.tenantId, scope: "admin" },
    { method: "PATCH", template: "/v1/tenants/{id}", id: f.tenantId, scope: "admin", body: { name: "x" } },
    { method: "POST", template: "/v1/tenants/{id}/signing-secret/rotate", id: f.tenantId, scope: "admin" },
    { method: "POST", template: "/v1/tenants/{id}/signing-secret/promote", id: f.tenantId, scope: "admin" },
    { method: "POST", template: "/v1/api-keys", scope: "admin", body: { tenant_id: f.tenantId } },
    { method: "GET", template: `/v1/api-keys?tenant_id=${f.tenantId}`, scope: "admin" },
    { method: "DELETE", template: "/v1/api-keys/{id}", id: f.keyId, scope: "admin" },
    { method: "POST", template: "/v1/jobs", scope: "tenant", body: job },
    { method: "POST", template: "/v1/jobs/batch", scope: "tenant", body: { jobs: [job] } },
    {
      method: "POST",
      template: "/v1/jobs/bulk",
      scope: "tenant",
      body: { action: "pause", filter: { name_prefix: "no-job-has-this-name-" } },
    },
    { method: "GET", template: "/v1/jobs", scope: "tenant" },
    { method: "GET", template: "/v1/jobs/{id}", id: f.jobId, scope: "tenant" },
    { method: "PATCH", template: "/v1/jobs/{id}", id: f.jobId, scope: "tenant", body: { name: "renamed" } },
    { method: "DELETE", template: "/v1/jobs/{id}", id: f.jobId, scope: "tenant" },
    { method: "POST", template: "/v1/jobs/{id}/pause", id: f.jobId, scope: "tenant" },
    { method: "POST", template: "/v1/jobs/{id}/resume", id: f.jobId, scope: "tenant" },
    { method: "POST", template: "/v1/jobs/{id}/trigger", id: f.jobId, scope: "tenant" },
    { method: "POST", template: "/v1/jobs/{id}/backfill", id: f.jobId, scope: "tenant", body: backfill },
    { method: "GET", template: "/v1/jobs/{id}/runs", id: f.jobId, scope: "tenant" },
    { method: "GET", template: "/v1/runs", scope: "tenant" },
    { method: "GET", template: "/v1/runs/{id}", id: f.runId, scope: "tenant" },
    { method: "POST", template: "/v1/runs/{id}/retry", id: f.runId, scope: "tenant" },
    { method: "GET", template: "/v1/dead-letters", scope: "tenant" },
    { method: "POST", template: "/v1/dead-letters/{id}/redrive", id: f.deadLetterId, scope: "tenant" },
    { method: "GET", template: "/v1/alerts", scope: "tenant" },
    { method: "GET", template: "/v1/stats", scope: "tenant" },
    {
      method: "POST",
      template: "/v1/schedules/preview",
      scope: "any",
      body: { schedule: job.schedule ?? null },
    },
  ];
}

export const pathOf = (route: Route, id = route.id ?? "") => route.template.replace("{id}", id);
export const bearer = (token: string) => `Bearer ${token}`;
export const goodAuth = (f: Fixtures, route: Route) => bearer(route.scope === "admin" ? f.adminToken : f.key);
const jsonOf = (body: Json | undefined) => (body === undefined ? undefined : JSON.stringify(body));

/** Missing and malformed credentials, on every route, with a body the route would accept. */
function authCases(f: Fixtures, all: Route[], random: () => number): BadRequest[] {
  // A made-up key per route: one key guessed on every route would fill its prefix's failure count
  // (failed authentication is throttled: test/integration/auth-throttle.test.ts).
  const madeUpKey = () =>
    Array.from({ length: 64 }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("");
  return all.flatMap((route) => {
    const junk = madeUpKey();
    const authorizations: [string, string | null][] = [
      ["no header", null],
      ["bare Bearer", "Bearer"],
      ["Basic", "Basic x"],
      ["wrong admin token", bearer(`${f.adminToken}x`)],
      ["made-up key", bearer(`ek_${junk}`)],
      ["whitespace inside the token", bearer(`${f.key.slice(0, 20)} ${f.key.slice(20)}`)],
      ["tab separator", `Bearer\t${f.key}`],
      ["revoked key", bearer(f.revokedKey)],
      ["two tokens", `${bearer(f.key)}, ${bearer(f.key)}`],
      ["10 KB token", bearer(`ek_${"a".repeat(10 * 1024)}`)],
      ["lowercase scheme, made-up key", `bearer ek_${madeUpKey()}`],
      ["key without its prefix", bearer(f.key.slice(3))],
    ];
    return authorizations.map(([label, authorization]) => ({
      label: `${route.method} ${route.template}: ${label}`,
      method: route.method,
      path: pathOf(route),
      authorization,
      body: jsonOf(route.body),
      expectStatus: 401,
    }));
  });
}

/** The wrong role or tenant: a key on admin routes, the admin without (or with a bad) tenant. */
function scopeCases(f: Fixtures, all: Route[]): BadRequest[] {
  return all.flatMap((route): BadRequest[] => {
    const base = { method: route.method, path: pathOf(route), body: jsonOf(route.body) };
    if (route.scope === "admin") {
      // Another tenant's key: T's own key may read T itself (GET /v1/tenants/T), nothing else here.
      const readsTenant = route.method === "GET" && route.template === "/v1/tenants/{id}";
      const label = `${route.method} ${route.template}: tenant key`;
      return [{ ...base, label, authorization: bearer(f.otherKey), expectStatus: readsTenant ? 404 : 403 }];
    }
    if (route.scope !== "tenant") return [];
    const admin = bearer(f.adminToken);
    const unknown = { "edgecron-tenant": "ten_00000000000000000000000000" };
    const cases: BadRequest[] = [
      {
        ...base,
        label: `${route.template}: unknown tenant`,
        authorization: admin,
        headers: unknown,
        expectStatus: 404,
      },
    ];
    if (route.template !== "/v1/stats") {
      cases.push({
        ...base,
        label: `${route.template}: admin, no tenant`,
        authorization: admin,
        expectStatus: 400,
      });
    }
    if (route.id !== undefined) {
      cases.push({
        ...base,
        label: `${route.template}: other tenant's key`,
        authorization: bearer(f.otherKey),
        expectStatus: 404,
      });
    }
    return cases;
  });
}

const BAD_IDS = [
  "..%2F..%2Fv1%2Ftenants",
  // (`%2e%2e` is no test: the URL parser resolves it to `..` before the request is sent.)
  "..%252F..%252F",
  "%00",
  "job_%00",
  "a".repeat(10 * 1024),
  "%ZZ",
  "'%20OR%201=1--",
  "%F0%9F%92%A9",
  "%E2%80%AE",
  "%EF%BB%BF",
  "%ED%A0%80",
  "job_0000000000000000000000000z",
];

/** Path ids that are not ids, on every by-id route, with good auth and an acceptable body. */
function idCases(f: Fixtures, all: Route[]): BadRequest[] {
  return all
    .filter((route) => route.id !== undefined)
    .flatMap((route) =>
      BAD_IDS.map((id) => ({
        label: `${route.method} ${route.template}: id ${id.slice(0, 30)}`,
        method: route.method,
        path: pathOf(route, id),
        authorization: goodAuth(f, route),
        body: jsonOf(route.body),
        expectStatus: 404,
      })),
    );
}

/** Query parameters out of range, and cursors this API never issued. */
function queryCases(f: Fixtures, random: () => number): BadRequest[] {
  const lists = ["/v1/jobs", "/v1/runs", "/v1/dead-letters", "/v1/alerts", `/v1/jobs/${f.jobId}/runs`];
  const randomCursor = () =>
    btoa(String.fromCharCode(...Array.from({ length: 12 }, () => Math.floor(random() * 256)))).replace(
      /=+$/,
      "",
    );
  const params = [
    ["limit", "0"],
    ["limit", "-1"],
    ["limit", "1e9"],
    ["limit", "201"],
    ["limit", "abc"],
    ["limit", "1.5"],
    ["limit", ""],
    ["limit", "%00"],
    ["limit", "0x10"],
    ["cursor", "!!!"],
    ["cursor", "%00"],
    ["cursor", randomCursor()],
    ["cursor", randomCursor()],
    ["cursor", btoa("a|b|c")],
    ["cursor", btoa("abc|run_x")],
    ["cursor", "a".repeat(401)],
    ["cursor", "%FF%FE"],
  ];
  const cases = lists.flatMap((list) =>
    params.map(([name, value]) => ({
      label: `GET ${list}?${name}=${String(value).slice(0, 20)}`,
      method: "GET",
      path: `${list}?${name}=${value}`,
      authorization: bearer(f.key),
      expectStatus: 400,
      expectPath: name === "limit" ? "limit" : "cursor",
    })),
  );
  const extra: [string, string][] = [
    [`/v1/jobs?status=BOGUS`, "status"],
    [`/v1/jobs?status=active`, "status"],
    [`/v1/jobs?status=ACTIVE%00`, "status"],
    [`/v1/jobs?name=${"x".repeat(201)}`, "name"],
    [`/v1/runs?state=BOGUS`, "state"],
    [`/v1/runs?job_id=${"j".repeat(101)}`, "job_id"],
    [`/v1/dead-letters?job_id=${"j".repeat(101)}`, "job_id"],
    [`/v1/alerts?kind=${"k".repeat(101)}`, "kind"],
    [`/v1/jobs/${f.jobId}?next=101`, "next"],
    [`/v1/jobs/${f.jobId}?next=-1`, "next"],
    [`/v1/jobs/${f.jobId}?next=abc`, "next"],
    [`/v1/jobs/${f.jobId}?next=1.5`, "next"],
  ];
  for (const [path, param] of extra) {
    cases.push({
      label: `GET ${path.slice(0, 60)}`,
      method: "GET",
      path,
      authorization: bearer(f.key),
      expectStatus: 400,
      expectPath: param,
    });
  }
  for (const path of ["/v1/api-keys", "/v1/api-keys?tenant_id="]) {
    cases.push({
      label: `GET ${path}`,
      method: "GET",
      path,
      authorization: bearer(f.adminToken),
      expectStatus: 400,
      expectPath: "tenant_id",
    });
  }
  return cases;
}

export function allBadRequests(f: Fixtures, seed: number): BadRequest[] {
  const random = seededRandom(seed);
  const all = routes(f);
  const cases = [
    ...authCases(f, all, random),
    ...scopeCases(f, all),
    ...idCases(f, all),
    ...queryCases(f, random),
    ...bodyCases(f, all, random),
  ];
  // Fisher-Yates with the seeded PRNG: order must not matter, and this shows it.
  for (let i = cases.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [cases[i], cases[j]] = [cases[j] as BadRequest, cases[i] as BadRequest];
  }
  return cases;
}
