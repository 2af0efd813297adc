// A preview refuses exactly what a create refuses, with the same errors (one check), lists
// `count` instants whenever the schedule has them (and says so when a bound stops it), and a job
// that can never run is refused on create, PATCH and batch alike.
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

disarmShardsAfterEach();

interface Problem {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

const daily12 = { type: "cron", expr: "0 12 * * *", timezone: "UTC" };
const noonOnly = { timezone: "UTC", rules: [{ type: "date", date: "2027-01-05" }] };
const everyDay = {
  timezone: "UTC",
  rules: [{ type: "weekly", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }],
};

let key = "";
beforeAll(async () => {
  ({ key } = await createTenantWithKey("agree"));
  for (const [name, body] of [
    ["jan-5", noonOnly],
    ["every-day", everyDay],
  ] as const) {
    const created = await api("POST", "/v1/calendars", { token: key, body: { name, ...body } });
    expect(created.status).toBe(201);
  }
});

/** The fields both routes take; the create adds a name and a target. */
const CASES: [label: string, fields: Record<string, unknown>][] = [
  [
    "a one-shot whose date is excluded",
    { schedules: [{ type: "once", at: "2027-01-05T10:00:00Z" }], exclude: noonOnly },
  ],
  [
    "a one-shot whose date a calendar excludes",
    { schedule: { type: "once", at: "2027-01-05T10:00:00Z" }, calendars: ["jan-5"] },
  ],
  [
    "a calendar and an exclude that exclude everything",
    { schedule: daily12, calendars: ["every-day"], exclude: noonOnly },
  ],
  ["an unknown calendar", { schedule: daily12, calendars: ["nope"] }],
  [
    "a daily 12:00 job in a 08:00-09:00 skipping window",
    { schedule: daily12, window: { between: ["08:00", "09:00"], outside: "skip" } },
  ],
  [
    "a one-shot outside a skipping window",
    {
      schedule: { type: "once", at: "2099-01-01T12:00:00Z" },
      window: { between: ["08:00", "09:00"], outside: "skip" },
    },
  ],
  [
    "a cron whose every match falls in a skipped DST gap",
    {
      schedule: {
        type: "cron",
        expr: "0 1 * 3 7L",
        timezone: "Europe/London",
        dst: { gap: "skip", overlap: "first" },
      },
    },
  ],
  [
    "one never-firing spec of several",
    {
      schedules: [
        daily12,
        { type: "cron", expr: "0 1 * 3 7L", timezone: "Europe/London", dst: { gap: "skip" } },
      ],
    },
  ],
  ["both schedule and schedules", { schedule: daily12, schedules: [daily12] }],
  ["neither schedule nor schedules", { exclude: noonOnly }],
  ["a one-shot in the past beyond the grace", { schedule: { type: "once", at: "2020-01-01T00:00:00Z" } }],
  [
    "a flexible window on an excluded one-shot",
    {
      schedule: { type: "once", at: "2027-01-05T10:00:00Z" },
      exclude: noonOnly,
      flexible_window: { max: "15m" },
    },
  ],
];

CASES.push(
  [
    "an invalid window beside a one-shot in the past (every problem named at once)",
    { schedule: { type: "once", at: "2020-01-01T00:00:00Z" }, window: { between: ["25:00", "09:00"] } },
  ],
  [
    "an invalid exclude beside an unknown calendar",
    { schedule: daily12, calendars: ["nope"], exclude: { rules: [] } },
  ],
);

describe("a preview refuses exactly what a create refuses", () => {
  it.each(CASES)("%s: the same 400 from both", async (_label, fields) => {
    const preview = await api<Problem>("POST", "/v1/schedules/preview", { token: key, body: fields });
    const create = await api<Problem>("POST", "/v1/jobs", {
      token: key,
      body: { ...jobBody(), schedule: undefined, ...fields },
    });
    expect(preview.status).toBe(400);
    expect(create.status).toBe(400);
    expect(preview.body.code).toBe("validation_failed");
    expect(preview.body.errors).toEqual(create.body.errors);
  });

  it("names `exclude` for the excluded one-shot, as docs/API.md says", async () => {
    const preview = await api<Problem>("POST", "/v1/schedules/preview", { token: key, body: CASES[0]?.[1] });
    expect(preview.body.errors?.map((error) => error.path)).toEqual(["exclude"]);
  });

  it("names `window` for the window that leaves nothing", async () => {
    const preview = await api<Problem>("POST", "/v1/schedules/preview", { token: key, body: CASES[4]?.[1] });
    expect(preview.body.errors).toEqual([
      { path: "window", message: expect.stringMatching(/skips every instant .*the job would never run/) },
    ]);
  });

  it("agrees with next_fire_times when both accept (specs, calendars, exclusions, windows)", async () => {
    const fields = {
      schedules: [daily12, { type: "cron", expr: "30 7 * * MON-FRI", timezone: "Europe/Berlin" }],
      calendars: ["jan-5"],
      exclude: { timezone: "UTC", rules: [{ type: "weekly", days: ["wed"] }] },
      window: { days: ["MON-SAT"], between: ["08:00", "20:00"], timezone: "Europe/Berlin" },
      flexible_window: { max: "10m" },
    };
    const created = await api<{ id: string; next_fire_times: string[] }>("POST", "/v1/jobs", {
      token: key,
      body: { ...jobBody(), schedule: undefined, ...fields },
    });
    expect(created.status).toBe(201);
    const preview = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      token: key,
      body: { ...fields, job_id: created.body.id, count: 5 },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.fire_times).toEqual(created.body.next_fire_times);
  });
});

describe("a preview lists count instants whenever the schedule has them", () => {
  it("vector v032: the second Sunday of May, six years running", async () => {
    const preview = await api<{ fire_times: string[]; stopped?: unknown }>("POST", "/v1/schedules/preview", {
      token: key,
      body: {
        schedule: { type: "cron", expr: "0 0 0 ? MAY 0#2", timezone: "UTC" },
        from: "2023-05-06T00:00:00Z",
        count: 6,
      },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.fire_times).toEqual([
      "2023-05-14T00:00:00.000Z",
      "2024-05-12T00:00:00.000Z",
      "2025-05-11T00:00:00.000Z",
      "2026-05-10T00:00:00.000Z",
      "2027-05-09T00:00:00.000Z",
      "2028-05-14T00:00:00.000Z",
    ]);
    expect(preview.body.stopped).toBeUndefined();
  });

  it("says that it stopped, and why, when exclusions leave nothing for five years after an instant", async () => {
    const body = {
      schedule: { type: "cron", expr: "@yearly", timezone: "UTC" },
      exclude: { timezone: "UTC", rules: [{ type: "range", from: "2028-01-01", to: "2035-12-31" }] },
      from: "2026-12-01T00:00:00Z",
      count: 3,
    };
    const preview = await api<{ fire_times: string[]; stopped?: Record<string, string> }>(
      "POST",
      "/v1/schedules/preview",
      { token: key, body },
    );
    expect(preview.status).toBe(200);
    expect(preview.body.fire_times).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(preview.body.stopped).toEqual({
      reason: "horizon",
      searched_through: new Date(Date.parse("2027-01-01T00:00:00Z") + 5 * 366 * 86_400_000).toISOString(),
      detail: expect.stringContaining("later instants may run"),
    });
  });

  it("says so in a job's next_fire_times too", async () => {
    const thisYear = new Date().getUTCFullYear();
    const created = await api<{
      id: string;
      next_fire_times: string[];
      next_fire_times_stopped?: { reason: string };
    }>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        exclude: {
          timezone: "UTC",
          rules: [{ type: "range", from: `${thisYear + 2}-01-01`, to: `${thisYear + 9}-12-31` }],
        },
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.next_fire_times).toEqual([`${thisYear + 1}-01-01T00:00:00.000Z`]);
    expect(created.body.next_fire_times_stopped?.reason).toBe("horizon");
    const console = new ConsoleClient();
    await console.signIn(key);
    const page = await console.get(`/console/jobs/${created.body.id}`);
    expect(page.text).toContain('data-field="next-fires-stopped"');
  });
});

describe("a job that can never run is refused on create, PATCH and batch", () => {
  const skipWindow = { between: ["08:00", "09:00"], outside: "skip" };

  it("refuses a window that leaves nothing on PATCH and in a batch", async () => {
    const created = await api<{ id: string }>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({ schedule: daily12 }),
    });
    expect(created.status).toBe(201);
    const patched = await api<Problem>("PATCH", `/v1/jobs/${created.body.id}`, {
      token: key,
      body: { window: skipWindow },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors?.map((error) => error.path)).toEqual(["window"]);
    const batch = await api<{ results: { status: number; error?: Problem }[] }>("POST", "/v1/jobs/batch", {
      token: key,
      body: { jobs: [jobBody({ schedule: daily12, window: skipWindow }), jobBody()] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((result) => result.status)).toEqual([400, 201]);
    expect(batch.body.results[0]?.error?.errors?.map((error) => error.path)).toEqual(["jobs.0.window"]);
  });

  it.each([
    [
      "end_at before start_at",
      { start_at: "2030-01-02T00:00:00Z", end_at: "2030-01-01T00:00:00Z" },
      "end_at",
    ],
    [
      "end_at equal to start_at",
      { start_at: "2030-01-02T00:00:00Z", end_at: "2030-01-02T00:00:00Z" },
      "end_at",
    ],
    [
      "end_at before start_at in other offsets",
      { start_at: "2030-01-02T01:00:00+02:00", end_at: "2030-01-01T23:30:00Z" },
      "end_at",
    ],
  ])("refuses %s", async (_label, fields, path) => {
    const create = await api<Problem>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({ schedule: daily12, ...fields }),
    });
    expect(create.status).toBe(400);
    expect(create.body.errors?.map((error) => error.path)).toEqual([path]);
  });

  it.each([
    "http:///hook",
    "https:/hook",
    "http:hook",
    "http:\\\\hook",
    "http://./",
    "http://vm../",
    "http://a..b/x",
  ])("refuses the target URL %s (no host, or an empty label)", async (url) => {
    const create = await api<Problem>("POST", "/v1/jobs", { token: key, body: jobBody({ target: { url } }) });
    expect(create.status).toBe(400);
    expect(create.body.errors?.map((error) => error.path)).toEqual(["target.url"]);
  });
});

describe("metadata keys are data", () => {
  it("stores and returns a __proto__ key exactly as sent, on create, read and PATCH", async () => {
    const text = `{"name":"proto","schedule":{"type":"once","at":"2099-01-01T00:00:00Z"},"target":{"url":"https://example.com/hook"},"metadata":{"__proto__":{"polluted":true},"constructor":"x","team":"a"}}`;
    const created = await api<{ id: string; metadata: Record<string, unknown> }>("POST", "/v1/jobs", {
      token: key,
      body: text,
    });
    expect(created.status).toBe(201);
    const expected = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","team":"a"}');
    expect(Object.keys(created.body.metadata)).toEqual(["__proto__", "constructor", "team"]);
    expect(JSON.stringify(created.body.metadata)).toBe(JSON.stringify(expected));
    const read = await api<{ metadata: unknown }>("GET", `/v1/jobs/${created.body.id}`, { token: key });
    expect(JSON.stringify(read.body.metadata)).toBe(JSON.stringify(expected));
    const patched = await api<{ metadata: unknown }>("PATCH", `/v1/jobs/${created.body.id}`, {
      token: key,
      body: '{"metadata":{"team":"b"}}',
    });
    expect(patched.status).toBe(200);
    expect(JSON.stringify(patched.body.metadata)).toBe(
      '{"__proto__":{"polluted":true},"constructor":"x","team":"b"}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
