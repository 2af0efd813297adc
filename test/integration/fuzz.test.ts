// A fuzz suite over the whole HTTP surface: every operation of the OpenAPI document the Worker
// serves and every QStash route, each field given wrong types, empty, huge, unicode, CRLF and
// out-of-range values (seeded, so a failure replays). Never a 5xx; a refusal is a 4xx in the
// route's error shape that names the field at fault; and a refused request stores nothing.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, api, BASE, createTenantWithKey } from "../helpers/api";
import { seededRandom } from "../helpers/bad-input-cases";
import type { Schema } from "../helpers/fuzz-schema";
import { type FuzzCase, type FuzzWorld, v1Cases } from "../helpers/fuzz-v1";
import { v2Cases } from "../helpers/fuzz-v2";
import { countJobs } from "../helpers/job-databases";
import { targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

const SEED = 0x42_4f_55_4e;
const TABLES = [
  "tenants",
  "api_keys",
  "calendars",
  "tenant_limits",
  "dead_letters",
  "bulk_operations",
  "qstash_queues",
  "qstash_url_groups",
  "workflow_runs",
  "workflow_steps",
  "workflow_waiters",
];

/** What a refused request must not change: the row counts of every table it could write. */
async function stored(): Promise<string> {
  const counts = TABLES.map((table) => `(SELECT COUNT(*) FROM ${table}) AS ${table}`).join(", ");
  const row = await env.DB.prepare(`SELECT ${counts}`).first();
  return JSON.stringify({ ...row, jobs: await countJobs() });
}

async function send(one: FuzzCase): Promise<Response> {
  const headers = new Headers(one.headers);
  headers.set("authorization", `Bearer ${one.token}`);
  return SELF.fetch(`${BASE}${one.path}`, { method: one.method, headers, body: one.body });
}

/** True when `named` (an error's path) names `field`, a field inside it, or the object around it. */
function names(named: string, field: string): boolean {
  return named === field || named.startsWith(`${field}.`) || field.startsWith(`${named}.`);
}

/** Everything wrong with one answer (empty: it is right), and whether it refused the request. */
async function check(
  one: FuzzCase,
  res: Response,
  v2: boolean,
): Promise<{ wrong: string[]; refused: boolean }> {
  const text = await res.text();
  if (res.status >= 500) return { wrong: [`status ${res.status}: ${text.slice(0, 200)}`], refused: true };
  const body = JSON.parse(text || "null") as Record<string, unknown> | null;
  const itemError = one.batchItem
    ? (body?.results as { error?: Record<string, unknown> }[] | undefined)?.[0]?.error
    : undefined;
  const refused = res.status >= 400 || itemError !== undefined;
  return { wrong: await wrongWith(one, res, v2, body, itemError), refused };
}

async function wrongWith(
  one: FuzzCase,
  res: Response,
  v2: boolean,
  body: Record<string, unknown> | null,
  itemError: Record<string, unknown> | undefined,
): Promise<string[]> {
  const wrong: string[] = [];
  const text = JSON.stringify(body);
  if (one.mustRefuse && res.status < 400 && !one.batchItem)
    wrong.push(`accepted (${res.status}) what must be refused`);
  if (res.status < 400 && !one.batchItem) return wrong;
  if (v2) {
    if (typeof body?.error !== "string" && typeof body?.detail !== "string")
      wrong.push(`no error text: ${text.slice(0, 120)}`);
    const message = String(body?.error ?? body?.detail ?? "").toLowerCase();
    if (res.status === 400 && one.field !== undefined && !message.includes(one.field.toLowerCase()))
      wrong.push(`400 does not name ${one.field}: ${message.slice(0, 160)}`);
    return wrong;
  }
  // A batch refused whole (a body-level problem) answers its own problem, not an item's.
  const problem = (one.batchItem && res.status < 400 ? itemError : body) ?? null;
  if (one.batchItem && res.status < 400 && problem === null) {
    if (one.mustRefuse) wrong.push("batch item accepted what must be refused");
    return wrong;
  }
  if (res.status >= 400 && res.headers.get("content-type") !== "application/problem+json")
    wrong.push(`content-type ${res.headers.get("content-type")}`);
  const errors = (problem?.errors ?? []) as { path: string }[];
  if (problem?.code === "validation_failed" && one.field !== undefined) {
    if (!errors.some((error) => names(error.path, one.field as string)))
      wrong.push(`errors name ${JSON.stringify(errors.map((error) => error.path))}, not ${one.field}`);
  }
  return wrong;
}

describe("fuzz: the whole HTTP surface", () => {
  let world: FuzzWorld;
  let cases: { v1: FuzzCase[]; v2: FuzzCase[] };

  beforeAll(async () => {
    const tenant = await createTenantWithKey("fuzz");
    const victim = await createTenantWithKey("fuzz-victim");
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: {
        name: "fuzz-fixture",
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        target: { url: targetUrl("/ok/fuzz") },
      },
    });
    const calendar = await api("POST", "/v1/calendars", {
      token: tenant.key,
      body: { name: "fuzz-cal", timezone: "UTC", rules: [{ type: "date", date: "2027-01-01" }] },
    });
    expect([job.status, calendar.status]).toEqual([201, 201]);
    world = {
      adminToken: ADMIN_TOKEN,
      key: tenant.key,
      victimTenantId: victim.tenantId,
      jobId: job.body.id,
      calendarName: "fuzz-cal",
      targetUrl: targetUrl(""),
    };
    const doc = (await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json()) as Schema;
    const random = seededRandom(SEED);
    cases = { v1: v1Cases(doc, world, random, 1), v2: v2Cases(tenant.key, random, 1) };
  });

  it.each(["v1", "v2"] as const)(
    "answers every %s case with a 2xx or a 4xx naming the field, never a 5xx, storing nothing when refused",
    async (surface) => {
      const list = cases[surface];
      expect(list.length).toBeGreaterThan(surface === "v1" ? 200 : 100);
      const failures: string[] = [];
      let before = await stored();
      for (const one of list) {
        const res = await send(one);
        const { wrong, refused } = await check(one, res, surface === "v2");
        const after = await stored();
        if (refused && after !== before) wrong.push(`stored something: ${before} -> ${after}`);
        before = after;
        for (const problem of wrong)
          failures.push(`${one.label} (${one.method} ${one.path.slice(0, 80)}): ${problem}`);
      }
      expect(failures).toEqual([]);
    },
    300_000,
  );
});
