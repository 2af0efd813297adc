// Body cases of the bad-input generator: content types, sizes, JSON syntax and field values,
// on every route that reads a body.
import {
  deeplyNested,
  JOB_MUTATIONS,
  type Json,
  MALFORMED_JSON,
  type Mutation,
  mutate,
  NOT_OBJECTS,
  PROTO_POLLUTION,
  validJob,
} from "./bad-input-bodies";
import type { BadRequest, Fixtures, Route } from "./bad-input-cases";
import { goodAuth, pathOf } from "./bad-input-cases";

const ONE_MB = 1024 * 1024;
const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/jsonx",
  "json",
  "text/json",
];

type Field = [body: Json, path: string];

/** A PATCH with the mutated top-level fields; null in a patch means "remove", which may be valid. */
function asPatch(base: Record<string, Json>, mutation: Mutation): Record<string, Json> | null {
  if (Object.values(mutation.set).some((value) => value === null)) return null;
  const mutated = mutate(base, mutation);
  const patch: Record<string, Json> = {};
  for (const path of Object.keys(mutation.set)) {
    const top = path.split(".")[0] as string;
    const value = mutated[top];
    if (value === undefined && !["name", "schedule", "target"].includes(top)) return null;
    patch[top] = value ?? null;
  }
  return patch;
}

/** Field-level cases per route template: [body, path errors[] must name]. */
function fieldCases(f: Fixtures): Record<string, Field[]> {
  const job = validJob(`${f.targetUrl}/ok/bad-input`);
  const jobs: Field[] = JOB_MUTATIONS.map((m) => [mutate(job, m), m.path]);
  jobs.push([JSON.parse(PROTO_POLLUTION) as Json, "__proto__"]);
  const patches: Field[] = JOB_MUTATIONS.flatMap((m): Field[] => {
    const patch = asPatch(job, m);
    return patch === null ? [] : [[patch, m.path]];
  });
  patches.push(
    [{ name: "x", version: "x" }, "version"],
    [{ name: "x", version: 0 }, "version"],
    [{ name: "x", version: 1.5 }, "version"],
  );
  const previews: Field[] = JOB_MUTATIONS.filter((m) => m.path.startsWith("schedule") && !m.createOnly).map(
    (m) => [{ schedule: mutate(job, m).schedule ?? null }, m.path],
  );
  const schedule = job.schedule as Json;
  for (const count of [0, 1001, -1, 1.5, "5", 1e308, null]) previews.push([{ schedule, count }, "count"]);
  for (const from of ["yesterday", 5, "2026-01-01T00:00:00"]) previews.push([{ schedule, from }, "from"]);
  previews.push([{ schedule, extra: 1 }, "extra"], [{}, "schedule"]);
  const instant = "2026-01-01T00:00:00Z";
  return {
    "POST /v1/jobs": jobs,
    "PATCH /v1/jobs/{id}": patches,
    "POST /v1/schedules/preview": previews,
    "POST /v1/jobs/batch": [
      [{ jobs: Array.from({ length: 1001 }, () => job) }, "jobs"],
      [{ jobs: [] }, "jobs"],
      [{ jobs: {} }, "jobs"],
      [{ jobs: "x" }, "jobs"],
      [{}, "jobs"],
      [{ jobs: [job], extra: 1 }, "extra"],
    ],
    "POST /v1/jobs/bulk": [
      [{}, "action"],
      [{ action: "stop", filter: { status: "ACTIVE" } }, "action"],
      [{ action: "delete", filter: {} }, "filter"],
      [{ action: "delete" }, "filter"],
      [{ action: "delete", filter: { name_prefx: "a" } }, "filter.name_prefx"],
      [{ action: "delete", filter: { status: "DELETED" } }, "filter.status"],
      [{ action: "delete", filter: { created_before: "yesterday" } }, "filter.created_before"],
      [{ action: "delete", filter: { metadata: "x" } }, "filter.metadata"],
      [{ action: "delete", all: false }, "all"],
      [{ action: "delete", all: true, extra: 1 }, "extra"],
    ],
    "POST /v1/jobs/{id}/backfill": [
      [{}, "from"],
      [{ from: "x", to: instant }, "from"],
      [{ from: 5, to: instant }, "from"],
      [{ from: "2026-01-01T00:00:00", to: instant }, "from"],
      [{ from: "2026-02-01T00:00:00Z", to: instant }, "to"],
      [{ from: instant, to: instant }, "to"],
      // The fixture job fires yearly: 1,075 instants up to 3100, over the 1,000 cap.
      [{ from: instant, to: "3100-01-01T00:00:00Z" }, "to"],
      [{ from: instant, to: "2026-01-05T00:00:00Z", extra: 1 }, "extra"],
    ],
    "POST /v1/tenants": [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: 5 }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "ok", alert_webhook_url: "ftp://x" }, "alert_webhook_url"],
      [{ name: "ok", alert_webhook_url: "javascript:alert(1)" }, "alert_webhook_url"],
      [{ name: "ok", alert_webhook_url: 5 }, "alert_webhook_url"],
      [{ name: "ok", alert_webhook_url: "https://user:pw@example.com/" }, "alert_webhook_url"],
      [{ name: "ok", extra: 1 }, "extra"],
    ],
    "PATCH /v1/tenants/{id}": [
      [{ name: "" }, "name"],
      [{ name: 5 }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ alert_webhook_url: "ftp://x" }, "alert_webhook_url"],
      [{ alert_webhook_url: 5 }, "alert_webhook_url"],
      [{ extra: 1 }, "extra"],
    ],
    "POST /v1/api-keys": [
      [{}, "tenant_id"],
      [{ tenant_id: 5 }, "tenant_id"],
      [{ tenant_id: "" }, "tenant_id"],
      [{ tenant_id: "x".repeat(101) }, "tenant_id"],
      [{ tenant_id: f.tenantId, name: "" }, "name"],
      [{ tenant_id: f.tenantId, name: 5 }, "name"],
      [{ tenant_id: f.tenantId, extra: 1 }, "extra"],
    ],
  };
}

/** Every body route: wrong content types, over 1 MB, broken JSON, non-objects, broken fields. */
export function bodyCases(f: Fixtures, all: Route[], random: () => number): BadRequest[] {
  const fields = fieldCases(f);
  const cases: BadRequest[] = [];
  for (const route of all.filter((candidate) => candidate.body !== undefined)) {
    const key = `${route.method} ${route.template}`;
    const request = (label: string, body: string | Uint8Array, extra: Partial<BadRequest> = {}) =>
      cases.push({
        label: `${key}: ${label}`,
        method: route.method,
        path: pathOf(route),
        authorization: goodAuth(f, route),
        headers: { "content-type": "application/json" },
        body,
        ...extra,
      });
    const valid = JSON.stringify(route.body);
    request("no content type", new TextEncoder().encode(valid), { headers: {}, expectStatus: 415 });
    for (const type of CONTENT_TYPES)
      request(type, valid, { headers: { "content-type": type }, expectStatus: 415 });
    request("over 1 MB", JSON.stringify({ name: "x".repeat(ONE_MB) }), { expectStatus: 413 });
    for (let i = 0; i < 6; i++) {
      const cut = 1 + Math.floor(random() * (valid.length - 1));
      request(`truncated at ${cut}`, valid.slice(0, cut), { expectStatus: 400 });
    }
    for (const text of MALFORMED_JSON)
      request(`malformed ${JSON.stringify(text)}`, text, { expectStatus: 400 });
    for (const text of NOT_OBJECTS) request(`not an object ${text}`, text, { expectStatus: 400 });
    request("invalid UTF-8", Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), {
      expectStatus: 400,
    });
    request("UTF-16", utf16(valid), { expectStatus: 400 });
    request("nested 50,000 deep", deeplyNested(50_000), { expectStatus: 400 });
    request("arrays nested 50,000 deep", `${"[".repeat(50_000)}${"]".repeat(50_000)}`, { expectStatus: 400 });
    for (const [body, path] of fields[key] ?? []) {
      const text = JSON.stringify(body);
      request(`${path} ${text.slice(0, 60)}`, text, { expectPath: path });
    }
  }
  return [...cases, ...headerCases(f, all)];
}

/** Headers a body route reads: Idempotency-Key, If-Match. */
function headerCases(f: Fixtures, all: Route[]): BadRequest[] {
  const create = all.find((route) => route.template === "/v1/jobs" && route.method === "POST") as Route;
  const patch = all.find((route) => route.template === "/v1/jobs/{id}" && route.method === "PATCH") as Route;
  const send = (
    route: Route,
    label: string,
    headers: Record<string, string>,
    extra: Partial<BadRequest>,
  ) => ({
    label: `${route.method} ${route.template}: ${label}`,
    method: route.method,
    path: pathOf(route),
    authorization: goodAuth(f, route),
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(route.body),
    ...extra,
  });
  return [
    send(create, "blank Idempotency-Key", { "idempotency-key": "   " }, { expectPath: "Idempotency-Key" }),
    send(
      create,
      "256-char Idempotency-Key",
      { "idempotency-key": "k".repeat(256) },
      { expectPath: "Idempotency-Key" },
    ),
    {
      ...send(
        create,
        "Idempotency-Key, metadata nested 50,000 deep",
        { "idempotency-key": "deep" },
        { expectStatus: 400 },
      ),
      body: JSON.stringify(create.body).replace(/}$/, `,"metadata":${deeplyNested(50_000)}}`),
    },
    {
      ...send(patch, "metadata nested 50,000 deep", {}, { expectStatus: 400 }),
      body: `{"metadata":${deeplyNested(50_000)}}`,
    },
    send(patch, "If-Match abc", { "if-match": "abc" }, { expectPath: "If-Match" }),
    send(patch, "If-Match of another version", { "if-match": '"99"' }, { expectStatus: 409 }),
    send(patch, "If-Match negative", { "if-match": "-1" }, { expectPath: "If-Match" }),
    { ...send(patch, "version 99 in body", {}, { expectStatus: 409 }), body: '{"name":"x","version":99}' },
    {
      ...send(patch, "If-Match and version disagree", { "if-match": "1" }, { expectPath: "version" }),
      body: '{"version":2}',
    },
  ];
}

function utf16(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    bytes[i * 2] = text.charCodeAt(i) & 0xff;
    bytes[i * 2 + 1] = text.charCodeAt(i) >> 8;
  }
  return bytes;
}
