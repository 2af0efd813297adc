// TEST ONLY. Until the HTTP API is merged, `src/api/app.ts` answers nothing under /v1, so the
// console's rendering tests register contract-shaped answers (docs/API.md) on the same Hono app.
// `installApiStubIfMissing` does nothing once real /v1 routes exist: the tests then run against
// the real API. Never imported by product code.
import type { Hono } from "hono";

export const STUB_TENANT_KEY = "ek_stub_tenant_key";
/** Accepted at sign-in (`/v1/me`) and refused afterwards, like a key revoked mid-session. */
export const STUB_REVOKED_KEY = "ek_stub_revoked_key";
const NOW_MS = Date.parse("2026-11-29T08:00:00.000Z");
const iso = (offsetMs: number) => new Date(NOW_MS + offsetMs).toISOString();

const problem = (status: number, title: string, errors?: { path: string; message: string }[]) =>
  new Response(JSON.stringify({ type: "about:blank", title, status, code: "validation_failed", errors }), {
    status,
    headers: { "content-type": "application/problem+json" },
  });

export const STUB_JOB = {
  id: "job_01STUBNIGHTLY",
  name: "nightly-report",
  status: "ACTIVE",
  version: 3,
  shard: 5,
  schedule: {
    type: "cron",
    expr: "30 2 * * *",
    timezone: "America/New_York",
    dst: { gap: "shift", overlap: "first" },
  },
  target: {
    type: "http",
    url: "https://reports.example.com/hook",
    method: "POST",
    headers: { "x-team": "data" },
    body: { report: "daily" },
  },
  retry: {
    max_attempts: 5,
    backoff: { initial: "30s", max: "1h", multiplier: 2, jitter: "full" },
    retry_on_status: [],
  },
  misfire: { policy: "fire_now", grace: "60s", max_catch_up: 10 },
  overlap: "allow",
  timeout: "30s",
  start_at: null,
  end_at: null,
  max_runs: null,
  jitter: null,
  pause_after_failures: null,
  on_failure: null,
  alert_after: "2m",
  metadata: {},
  next_fire_times: Array.from({ length: 10 }, (_, day) =>
    iso(day * 86_400_000 + 3 * 3_600_000 + 30 * 60_000),
  ),
  created_at: iso(-7 * 86_400_000),
  updated_at: iso(-3_600_000),
};

const PAUSED_JOB = {
  ...STUB_JOB,
  id: "job_01STUBBILLING",
  name: "billing-renewal-42",
  status: "PAUSED",
  schedule: { type: "interval", every: "15m", anchor: iso(-86_400_000) },
  next_fire_times: [],
};

const run = (index: number, state: string, extra: Record<string, unknown> = {}) => ({
  id: `run_stub_${index}`,
  job_id: STUB_JOB.id,
  kind: index === 0 ? "trigger" : "schedule",
  scheduled_at: iso(-index * 300_000),
  idempotency_key: `${STUB_JOB.id}:${iso(-index * 300_000)}`,
  state,
  attempt: 1,
  max_attempts: 5,
  fence: 100 + index,
  job_version: 3,
  target_status: 200,
  error: null,
  lateness_ms: 8 + index * 3,
  duration_ms: 40,
  next_attempt_at: null,
  events: [],
  created_at: iso(-index * 300_000),
  updated_at: iso(-index * 300_000 + 1000),
  ...extra,
});

export const STUB_RUNS = [
  run(0, "SUCCEEDED"),
  run(1, "RETRYING", {
    attempt: 2,
    target_status: 503,
    error: "HTTP 503 Service Unavailable",
    next_attempt_at: iso(60_000),
  }),
  run(2, "DEAD_LETTERED", { attempt: 5, target_status: 500, error: "HTTP 500 Internal Server Error" }),
  run(3, "FAILED", { target_status: 404, error: "HTTP 404 Not Found (permanent)" }),
  run(4, "SUCCEEDED"),
];

const DEAD_LETTER = {
  id: "dl_stub_1",
  job_id: STUB_JOB.id,
  run_id: "run_stub_2",
  attempt: 5,
  scheduled_at: iso(-600_000),
  reason: "max_attempts",
  last_error: "HTTP 500 Internal Server Error: upstream timeout",
  target_status: 500,
  payload: {
    method: "POST",
    url: STUB_JOB.target.url,
    headers: { "x-team": "data" },
    body: { report: "daily" },
  },
  created_at: iso(-500_000),
  redriven_at: null,
};

const ALERTS = [
  {
    id: "al_1",
    job_id: STUB_JOB.id,
    run_id: "run_stub_2",
    kind: "dead_letter",
    message: "Run dead-lettered after 5 attempts",
    details: {},
    created_at: iso(-500_000),
    delivered_at: iso(-499_000),
    resolved_at: null,
  },
  {
    id: "al_2",
    job_id: PAUSED_JOB.id,
    run_id: null,
    kind: "missed_run",
    message: "Fire time passed without dispatch",
    details: {},
    created_at: iso(-7_200_000),
    delivered_at: iso(-7_199_000),
    resolved_at: iso(-7_000_000),
  },
];

const STATS = {
  jobs_by_status: { ACTIVE: 12, PAUSED: 2, COMPLETED: 4 },
  runs_by_state: { SUCCEEDED: 640, FAILED: 9, RETRYING: 2, DEAD_LETTERED: 3, SKIPPED: 5 },
  per_minute: Array.from({ length: 60 }, (_, minute) => ({
    minute: iso((minute - 60) * 60_000),
    triggers: 6 + ((minute * 7) % 11) + (minute % 15 === 0 ? 14 : 0),
    failures: minute % 9 === 0 ? 2 : minute % 13 === 0 ? 1 : 0,
  })),
  lateness_ms: { p50: 14, p90: 62, p99: 240, count: 654 },
};

/** Just enough cron checking for the console's error paths: field count and minute/hour range. */
function badCron(expr: string | undefined): boolean {
  if (expr === undefined) return false;
  const fields = expr.trim().split(/\s+/);
  return (
    fields.length < 5 ||
    fields.length > 6 ||
    fields.some((field) => /^\d+$/.test(field) && Number(field) > 59)
  );
}

function whoIs(header: string | undefined, adminToken: string): "admin" | "tenant" | null {
  const token = header?.replace(/^Bearer /, "");
  if (token === adminToken) return "admin";
  return token === STUB_TENANT_KEY ? "tenant" : null;
}

/** Registers the stub unless the real API already routes /v1; returns whether it did. */
export function installApiStubIfMissing(app: Hono<{ Bindings: Env }>): boolean {
  if (app.routes.some((route) => route.path.startsWith("/v1/"))) return false;
  app.use("/v1/*", async (c, next) => {
    const role = whoIs(c.req.header("authorization"), c.env.EDGECRON_ADMIN_TOKEN);
    const revoked = c.req.header("authorization") === `Bearer ${STUB_REVOKED_KEY}`;
    if (revoked && c.req.path === "/v1/me") return c.json({ role: "tenant", tenant_id: "tn_acme" });
    if (!role) return problem(401, "Unauthorized");
    await next();
  });
  app.get("/v1/me", (c) => {
    const role = whoIs(c.req.header("authorization"), c.env.EDGECRON_ADMIN_TOKEN);
    return c.json({ role, tenant_id: role === "tenant" ? "tn_acme" : null });
  });
  app.get("/v1/tenants", (c) =>
    c.json({
      data: [
        { id: "tn_acme", name: "acme" },
        { id: "tn_globex", name: "globex" },
      ],
    }),
  );
  app.get("/v1/stats", (c) => c.json(STATS));
  app.get("/v1/jobs", (c) => c.json({ data: [STUB_JOB, PAUSED_JOB], next_cursor: "cursor_2" }));
  app.get("/v1/jobs/:id", (c) =>
    c.req.param("id") === PAUSED_JOB.id ? c.json(PAUSED_JOB) : c.json({ ...STUB_JOB, id: c.req.param("id") }),
  );
  app.get("/v1/jobs/:id/runs", (c) => c.json({ data: STUB_RUNS, next_cursor: null }));
  app.get("/v1/runs", (c) => {
    const state = c.req.query("state");
    return c.json({ data: STUB_RUNS.filter((item) => !state || item.state === state), next_cursor: null });
  });
  app.get("/v1/dead-letters", (c) => c.json({ data: [DEAD_LETTER], next_cursor: null }));
  app.get("/v1/alerts", (c) => c.json({ data: ALERTS, next_cursor: null }));
  app.post("/v1/schedules/preview", async (c) => {
    const { schedule } = await c.req.json<{ schedule: { expr?: string } }>();
    if (badCron(schedule.expr)) {
      return problem(400, "Invalid schedule", [
        { path: "schedule.expr", message: "must have 5 or 6 fields" },
      ]);
    }
    return c.json({ fire_times: STUB_JOB.next_fire_times.slice(0, 5) });
  });
  app.post("/v1/jobs", async (c) => {
    const body = await c.req.json<{ name?: string; schedule?: { expr?: string } }>();
    const errors = [];
    if (!body.name) errors.push({ path: "name", message: "is required" });
    if (badCron(body.schedule?.expr)) {
      errors.push({ path: "schedule.expr", message: "must have 5 or 6 fields" });
    }
    if (errors.length) return problem(400, "Invalid job", errors);
    return c.json({ ...STUB_JOB, name: body.name }, 201);
  });
  for (const operation of ["pause", "resume"]) {
    app.post(`/v1/jobs/:id/${operation}`, (c) =>
      c.json({ ...STUB_JOB, status: operation === "pause" ? "PAUSED" : "ACTIVE" }),
    );
  }
  app.post("/v1/jobs/:id/trigger", (c) =>
    c.json({ run_id: "run_new", job_id: c.req.param("id"), scheduled_at: iso(0) }, 202),
  );
  app.post("/v1/jobs/:id/backfill", (c) => c.json({ created: 3, skipped: 0, run_ids: [] }, 202));
  app.delete("/v1/jobs/:id", (c) => c.json({ ...STUB_JOB, status: "DELETED" }));
  app.patch("/v1/jobs/:id", (c) => c.json({ ...STUB_JOB, version: STUB_JOB.version + 1 }));
  app.post("/v1/runs/:id/retry", (c) => c.json({ run_id: c.req.param("id"), attempt: 2 }, 202));
  app.post("/v1/dead-letters/:id/redrive", (c) =>
    c.json({ run_id: "run_new", attempt: 1, dead_letter_id: c.req.param("id") }, 202),
  );
  return true;
}
