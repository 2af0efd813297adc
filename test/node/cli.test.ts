// The CLI as users run it: `node bin/edgecron.mjs ...` against a stub API, asserting what it sent,
// what it printed and its exit code.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliResult, cli } from "./cli-harness";
import { fullJob, type StubServer, sampleJob, startStub } from "./stub-server";

describe("edgecron CLI", () => {
  let stub: StubServer;
  let api: (args: string[]) => Promise<CliResult>;
  const dir = mkdtempSync(join(tmpdir(), "edgecron-cli-"));

  beforeAll(async () => {
    stub = await startStub();
    api = (args) => cli([...args, "--url", stub.url], { EDGECRON_TOKEN: "ek_cli" });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });

  describe("usage", () => {
    it("prints help and exits 0", async () => {
      const result = await cli(["--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("jobs create");
      expect(result.stdout).toContain("EDGECRON_TOKEN");
    });

    it("exits 2 on an unknown command, an unknown flag or a missing argument", async () => {
      for (const args of [
        ["frobnicate"],
        ["jobs", "list", "--colour"],
        ["jobs", "get"],
        ["jobs", "list", "--limit", "0"],
      ]) {
        const result = await cli(args, { EDGECRON_TOKEN: "t" });
        expect(result.code, args.join(" ")).toBe(2);
        expect(result.stderr).toMatch(/error|unknown command/);
      }
      expect(stub.requests).toHaveLength(0);
    });

    it("exits 2 and says how to set the token when none is given", async () => {
      const result = await cli(["jobs", "list", "--url", stub.url]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("EDGECRON_TOKEN");
      expect(result.stderr).toContain("dev-admin-token");
    });

    it("takes the URL and token from the environment", async () => {
      stub.reply(() => ({ status: 200, body: { role: "admin", tenant_id: null } }));
      const result = await cli(["me"], { EDGECRON_URL: stub.url, EDGECRON_TOKEN: "from-env" });
      expect(result.code).toBe(0);
      expect(stub.requests[0]?.headers.authorization).toBe("Bearer from-env");
      expect(result.stdout).toMatch(/role\s+admin/);
    });
  });

  describe("jobs", () => {
    it("lists jobs as a table, and as JSON with --json", async () => {
      const page = {
        data: [
          sampleJob(),
          sampleJob({
            id: "job_02",
            name: "nightly",
            status: "PAUSED",
            schedule: { type: "interval", every: "15m" },
          }),
        ],
        next_cursor: "n2",
      };
      stub.reply(() => ({ status: 200, body: page }));
      const table = await api(["jobs", "list", "--status", "active", "--limit", "2"]);
      expect(table.code).toBe(0);
      expect(stub.requests[0]?.path).toBe("/v1/jobs?status=ACTIVE&limit=2");
      const lines = table.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+SCHEDULE\s+NEXT FIRE$/);
      expect(lines[1]).toMatch(
        /^job_01\s+renew-42\s+ACTIVE\s+cron "0 9 \* \* MON-FRI" America\/New_York\s+2026-12-01T14:00:00.000Z$/,
      );
      expect(lines[2]).toMatch(/^job_02\s+nightly\s+PAUSED\s+every 15m/);
      // Columns line up: STATUS starts at the same offset on every line.
      expect(new Set(lines.map((line) => line.search(/ACTIVE|PAUSED|STATUS/))).size).toBe(1);
      expect(table.stderr).toContain("--cursor n2");

      const json = await api(["jobs", "list", "--json"]);
      expect(JSON.parse(json.stdout)).toEqual(page);
    });

    it("creates a job from flags", async () => {
      stub.reply(() => ({ status: 201, body: sampleJob() }));
      const result = await api([
        "jobs",
        "create",
        "--name",
        "renew-42",
        "--cron",
        "0 9 * * MON-FRI",
        "--tz",
        "America/New_York",
        "--target",
        "https://example.com/hook",
        "--body",
        '{"sub":42}',
        "--header",
        "x-tenant: acme",
        "--max-attempts",
        "5",
        "--calendar",
        "us-holidays",
        "--calendar",
        "office-closed",
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(stub.requests[0]?.json()).toEqual({
        name: "renew-42",
        schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "America/New_York" },
        calendars: ["us-holidays", "office-closed"],
        target: {
          type: "http",
          url: "https://example.com/hook",
          method: "POST",
          headers: { "x-tenant": "acme" },
          body: { sub: 42 },
        },
        retry: { max_attempts: 5 },
      });
      expect(stub.requests[0]?.headers["idempotency-key"]).toBeTruthy();
      expect(result.stdout).toContain("created job_01");
      expect(result.stdout).toMatch(/next fires\s+2026-12-01T14:00:00.000Z\n\s+2026-12-02T14:00:00.000Z/);
    });

    it("sends --window, --window-days, --window-tz, --outside and --flexible-window as the job's windows, and shows them", async () => {
      // The job as created: what was sent, over the defaults.
      stub.reply((request) => ({ status: 201, body: sampleJob(request.json() as Record<string, unknown>) }));
      const result = await api([
        "jobs",
        "create",
        "--name",
        "quiet",
        "--every",
        "30m",
        "--target",
        "https://example.com/hook",
        "--window",
        "08:00-20:00",
        "--window-days",
        "MON-FRI,SAT",
        "--window-tz",
        "Europe/Berlin",
        "--outside",
        "skip",
        "--flexible-window",
        "15m",
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(stub.requests[0]?.json()).toMatchObject({
        window: {
          between: ["08:00", "20:00"],
          days: ["MON-FRI", "SAT"],
          timezone: "Europe/Berlin",
          outside: "skip",
        },
        flexible_window: { max: "15m" },
      });
      expect(result.stdout).toMatch(/^window +MON-FRI,SAT 08:00-20:00 Europe\/Berlin, outside: skip$/m);
      expect(result.stdout).toMatch(/^flexible window +up to 15m after each instant$/m);
      const bad = await api([
        "jobs",
        "create",
        "--name",
        "q",
        "--every",
        "1m",
        "--target",
        "https://e.x/h",
        "--outside",
        "skip",
      ]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain("--window");
    });

    it("creates and retargets jobs whose target is a binding", async () => {
      stub.reply(() => ({ status: 201, body: sampleJob() }));
      const base = ["jobs", "create", "--name", "b", "--every", "1h"];
      await api([...base, "--target", "service:BILLING/hook?x=1", "--method", "PUT"]);
      await api([...base, "--target", "workflow:REPORT_FLOW", "--body", '{"a":1}']);
      expect(stub.requests.map((request) => (request.json() as { target: unknown }).target)).toEqual([
        { type: "service", binding: "BILLING", path: "/hook?x=1", method: "PUT", headers: {} },
        { type: "workflow", binding: "REPORT_FLOW", body: { a: 1 } },
      ]);
      stub.reply(() => ({ status: 200, body: sampleJob() }));
      await api(["jobs", "update", "job_01", "--target", "queue:USER_EVENTS"]);
      expect((stub.requests[2]!.json() as { target: unknown }).target).toEqual({
        type: "queue",
        binding: "USER_EVENTS",
      });
      const refused = await api([...base, "--target", "queue:USER_EVENTS/path"]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("takes no path");
    });

    it("creates interval and one-shot jobs from flags", async () => {
      stub.reply(() => ({ status: 201, body: sampleJob() }));
      await api([
        "jobs",
        "create",
        "--name",
        "a",
        "--every",
        "15m",
        "--target",
        "http://t/x",
        "--method",
        "get",
      ]);
      await api(["jobs", "create", "--name", "b", "--at", "2026-12-01T00:00:00Z", "--target", "http://t/x"]);
      await api([
        "jobs",
        "create",
        "--name",
        "c",
        "--delay",
        "2h",
        "--target",
        "http://t/x",
        "--body",
        "plain text",
      ]);
      const bodies = stub.requests.map(
        (r) => r.json() as { schedule: unknown; target: { method: string; body?: unknown } },
      );
      expect(bodies.map((b) => b.schedule)).toEqual([
        { type: "interval", every: "15m" },
        { type: "once", at: "2026-12-01T00:00:00Z" },
        { type: "once", delay: "2h" },
      ]);
      expect(bodies[0]?.target.method).toBe("GET");
      expect(bodies[2]?.target.body).toBe("plain text");
    });

    it("creates a job from --file", async () => {
      const file = join(dir, "job.json");
      const job = {
        name: "from-file",
        schedule: { type: "interval", every: "1m" },
        target: { url: "https://example.com" },
      };
      writeFileSync(file, JSON.stringify(job));
      stub.reply(() => ({ status: 201, body: sampleJob({ name: "from-file" }) }));
      const result = await api(["jobs", "create", "--file", file, "--json", "--idempotency-key", "k-1"]);
      expect(result.code).toBe(0);
      expect(stub.requests[0]?.json()).toEqual(job);
      expect(stub.requests[0]?.headers["idempotency-key"]).toBe("k-1");
      expect(JSON.parse(result.stdout).name).toBe("from-file");
    });

    it("refuses two schedules or --file with flags (exit 2, nothing sent)", async () => {
      const two = await api([
        "jobs",
        "create",
        "--name",
        "x",
        "--cron",
        "* * * * *",
        "--every",
        "1m",
        "--target",
        "http://t",
      ]);
      const both = await api(["jobs", "create", "--file", "x.json", "--name", "x"]);
      expect([two.code, both.code]).toEqual([2, 2]);
      expect(stub.requests).toHaveLength(0);
    });

    it("shows every field of a job in jobs get and as a column of jobs list --wide", async () => {
      stub.reply((request) =>
        request.path.split("?")[0] === "/v1/jobs"
          ? { status: 200, body: { data: [fullJob()], next_cursor: null } }
          : { status: 200, body: fullJob() },
      );
      const got = await api(["jobs", "get", "job_01"]);
      expect(got.code, got.stderr).toBe(0);
      for (const line of [
        /^window +MON-FRI 08:00-20:00 Europe\/Berlin, outside: skip$/m,
        /^flexible window +up to 15m after each instant$/m,
        /^debounce +trailing 30s, key acct, at most 5m$/m,
        /^flow control +key billing: 10 per 1m, 2 in flight$/m,
        /^priority +1$/m,
        /^calendars +uk-holidays, shutdown$/m,
        /^metadata +\{"team":"payments"\}$/m,
      ]) {
        expect(got.stdout).toMatch(line);
      }
      const wide = await api(["jobs", "list", "--wide"]);
      expect(wide.code, wide.stderr).toBe(0);
      const [header, row] = wide.stdout.trimEnd().split("\n");
      expect(header).toMatch(
        /^ID +NAME +STATUS +VERSION +SHARD +SCHEDULE +CALENDARS .* WINDOW +FLEXIBLE WINDOW +DEBOUNCE +FLOW CONTROL /,
      );
      expect(row).toContain("MON-FRI 08:00-20:00 Europe/Berlin, outside: skip");
      expect(row).toContain("key billing: 10 per 1m, 2 in flight");
      // Without --wide, the short table.
      const short = await api(["jobs", "list"]);
      expect(short.stdout.split("\n")[0]).toMatch(/^ID +NAME +STATUS +SCHEDULE +NEXT FIRE$/);
    });

    it("names the id a 404 is about, whatever the server's detail says", async () => {
      const notFound = (code: string, detail: string) => ({
        status: 404,
        body: { type: `urn:edgecron:problem:${code}`, title: "Not Found", status: 404, code, detail },
      });
      stub.reply(() => notFound("job_not_found", "No such job"));
      const got = await api(["jobs", "get", "job_nope"]);
      expect(got.code).toBe(1);
      expect(got.stderr).toBe("error: Not Found (404 job_not_found)\n  No such job: job_nope\n");
      const runs = await api(["runs", "list", "--job", "job_gone"]);
      expect(runs.stderr).toContain("No such job: job_gone");
      for (const action of ["pause", "delete", "trigger"]) {
        expect((await api(["jobs", action, "job_x1"])).stderr).toContain("No such job: job_x1");
      }
      // A detail that names it already is left as it is; a 404 about something else names nothing.
      stub.reply(() => notFound("job_not_found", "No job job_nope"));
      expect((await api(["jobs", "get", "job_nope"])).stderr).toContain("  No job job_nope\n");
      stub.reply(() => notFound("run_not_found", "No such run"));
      expect((await api(["runs", "get", "run_9"])).stderr).toContain("No such run: run_9");
      stub.reply(() => notFound("dead_letter_not_found", "No such dead letter"));
      expect((await api(["dlq", "redrive", "dl_7"])).stderr).toContain("No such dead letter: dl_7");
    });

    it("exits 1 on an API error and prints the title, detail and each field path", async () => {
      stub.reply(() => ({
        status: 400,
        body: {
          type: "about:blank",
          title: "Invalid job",
          status: 400,
          code: "validation_failed",
          detail: "1 field is invalid",
          errors: [{ path: "schedule.expr", message: "can never fire" }],
        },
      }));
      const result = await api([
        "jobs",
        "create",
        "--name",
        "x",
        "--cron",
        "0 0 30 2 *",
        "--target",
        "http://t",
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "error: Invalid job (400 validation_failed)\n  1 field is invalid\n  schedule.expr: can never fire\n",
      );
    });

    it("pauses, resumes, triggers and deletes by id", async () => {
      stub.reply((request) =>
        request.path.endsWith("/trigger")
          ? {
              status: 202,
              body: { run_id: "run_1", job_id: "job_01", scheduled_at: "2026-12-01T00:00:00.000Z" },
            }
          : { status: 200, body: sampleJob({ status: request.method === "DELETE" ? "DELETED" : "PAUSED" }) },
      );
      expect((await api(["jobs", "pause", "job_01"])).stdout).toBe("job_01 PAUSED\n");
      await api(["jobs", "resume", "job_01"]);
      expect((await api(["jobs", "trigger", "job_01"])).stdout).toMatch(/run\s+run_1/);
      expect((await api(["jobs", "delete", "job_01"])).stdout).toBe("job_01 DELETED\n");
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "POST /v1/jobs/job_01/pause",
        "POST /v1/jobs/job_01/resume",
        "POST /v1/jobs/job_01/trigger",
        "DELETE /v1/jobs/job_01",
      ]);
    });
  });

  describe("import", () => {
    const job = (name: string) =>
      JSON.stringify({
        name,
        schedule: { type: "interval", every: "1m" },
        target: { url: "https://example.com" },
      });

    it("sends chunks through the batch API and reports failures by line number", async () => {
      const file = join(dir, "jobs.jsonl");
      // line 3 is blank, line 4 is not JSON, line 6 is refused by the API.
      writeFileSync(file, [job("a"), job("b"), "", "{oops", job("c"), job("bad"), job("d")].join("\n"));
      stub.reply((request) => {
        const { jobs } = request.json() as { jobs: { name: string }[] };
        const results = jobs.map((item, index) =>
          item.name === "bad"
            ? {
                index,
                status: 400,
                error: {
                  type: "about:blank",
                  title: "Invalid job",
                  status: 400,
                  errors: [{ path: `jobs.${index}.schedule.every`, message: "too short" }],
                },
              }
            : { index, status: 201, job: sampleJob({ name: item.name }) },
        );
        const failed = results.filter((r) => r.status !== 201).length;
        return { status: 200, body: { created: results.length - failed, failed, results } };
      });
      const result = await api(["import", file, "--chunk", "2"]);
      expect(result.code).toBe(1);
      expect(
        stub.requests.map((r) => (r.json() as { jobs: { name: string }[] }).jobs.map((j) => j.name)),
      ).toEqual([["a", "b"], ["c", "bad"], ["d"]]);
      expect(result.stdout).toContain("created 4, failed 2\n");
      expect(result.stdout).toMatch(/line 4: invalid JSON/);
      expect(result.stdout).toContain("line 6: Invalid job\n  schedule.every: too short\n");
      // Not a terminal: no progress bar.
      expect(result.stderr).toBe("");
    });

    it("prints a JSON summary and exits 0 when everything was created", async () => {
      const file = join(dir, "ok.jsonl");
      writeFileSync(file, `${job("a")}\n${job("b")}\n`);
      stub.reply(() => ({
        status: 200,
        body: {
          created: 2,
          failed: 0,
          results: [0, 1].map((index) => ({ index, status: 201, job: sampleJob() })),
        },
      }));
      const result = await api(["import", file, "--json"]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ created: 2, failed: 0, failures: [] });
    });

    it("stops at an authentication error and counts the rest as not sent", async () => {
      const file = join(dir, "auth.jsonl");
      writeFileSync(file, [job("a"), job("b"), job("c")].join("\n"));
      stub.reply(() => ({ status: 401, body: { type: "about:blank", title: "Unauthorized", status: 401 } }));
      const result = await api(["import", file, "--chunk", "1"]);
      expect(result.code).toBe(1);
      expect(stub.requests).toHaveLength(1);
      expect(result.stdout).toContain("created 0, failed 3");
      expect(result.stderr).toContain("import stopped");
    });

    it("exits 2 when the file does not exist", async () => {
      expect((await api(["import", join(dir, "missing.jsonl")])).code).toBe(2);
    });
  });

  describe("runs, dead letters, preview, admin", () => {
    it("lists runs of a job and dead letters; redrives one", async () => {
      stub.reply((request) => {
        if (request.path.startsWith("/v1/runs")) {
          return {
            status: 200,
            body: {
              data: [
                {
                  id: "run_1",
                  job_id: "job_01",
                  kind: "schedule",
                  state: "FAILED",
                  attempt: 2,
                  max_attempts: 3,
                  scheduled_at: "2026-12-01T00:00:00.000Z",
                  target_status: 500,
                  error: "HTTP 500",
                  events: [],
                },
              ],
              next_cursor: null,
            },
          };
        }
        if (request.path.endsWith("/redrive"))
          return { status: 202, body: { run_id: "run_2", attempt: 1, dead_letter_id: "dl_1" } };
        return { status: 200, body: { data: [], next_cursor: null } };
      });
      const runs = await api(["runs", "list", "--job", "job_01", "--state", "failed"]);
      expect(runs.stdout).toMatch(
        /run_1\s+job_01\s+schedule\s+FAILED\s+2\/3\s+2026-12-01T00:00:00.000Z\s+500\s+HTTP 500/,
      );
      expect((await api(["dlq", "list"])).stdout).toBe("no dead letters\n");
      expect((await api(["dlq", "redrive", "dl_1"])).stdout).toContain("run run_2");
      expect(stub.requests.map((r) => r.path)).toEqual([
        "/v1/runs?job_id=job_01&state=FAILED",
        "/v1/dead-letters",
        "/v1/dead-letters/dl_1/redrive",
      ]);
    });

    it("previews a cron expression with wall times in the zone", async () => {
      stub.reply(() => ({
        status: 200,
        body: { fire_times: ["2026-12-01T08:00:00.000Z", "2026-12-02T08:00:00.000Z"] },
      }));
      const result = await api(["preview", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "--count", "2"]);
      expect(result.code).toBe(0);
      expect(stub.requests[0]?.json()).toEqual({
        schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "Europe/Berlin" },
        count: 2,
      });
      expect(result.stdout).toMatch(
        /^#\s+UTC\s+Europe\/Berlin\n1\s+2026-12-01T08:00:00.000Z\s+2026-12-01 09:00:00 GMT\+1 \(Tue\)\n/,
      );
    });

    it("creates a tenant and a key", async () => {
      stub.reply((request) =>
        request.path === "/v1/tenants"
          ? {
              status: 201,
              body: {
                id: "ten_1",
                name: "acme",
                alert_webhook_url: null,
                signing_secret: "whsec_1",
                signing_secret_next: null,
                created_at: "2026-11-29T00:00:00.000Z",
              },
            }
          : {
              status: 201,
              body: {
                id: "key_1",
                tenant_id: "ten_1",
                name: "ci",
                key: "ek_secret",
                key_prefix: "ek_sec",
                created_at: "2026-11-29T00:00:00.000Z",
              },
            },
      );
      const tenant = await api(["tenants", "create", "--name", "acme"]);
      expect(tenant.stdout).toMatch(/signing secret\s+whsec_1/);
      const key = await api(["keys", "create", "--tenant-id", "ten_1", "--name", "ci"]);
      expect(key.stdout).toMatch(/key\s+ek_secret/);
      expect(stub.requests.map((r) => r.json())).toEqual([
        { name: "acme" },
        { tenant_id: "ten_1", name: "ci" },
      ]);
    });
  });
});
