// The CLI's usage paths (help, version, flag errors, exit codes) and the commands that change a
// job or list keys, against a stub API that records what was sent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliResult, cli } from "./cli-harness";
import { type StubServer, sampleJob, startStub } from "./stub-server";

const VERSION = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8"),
).version;

describe("edgecron CLI usage", () => {
  it("exits 2 with the help on stderr when called with no arguments", async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("usage: edgecron <command>");
  });

  it("prints a group's commands for `jobs --help` (exit 0) and for bare `jobs` (exit 2)", async () => {
    const help = await cli(["jobs", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: edgecron jobs <command>");
    expect(help.stdout).toMatch(/jobs update\s+change a job/);
    expect(help.stdout).not.toContain("tenants create");
    expect(help.stderr).not.toContain("unknown command");
    const bare = await cli(["jobs"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("`jobs` needs a subcommand");
  });

  it("prints the version for --version", async () => {
    const result = await cli(["--version"]);
    expect(result).toEqual({ code: 0, stdout: `edgecron ${VERSION}\n`, stderr: "" });
  });

  it("answers an unknown flag or a missing value with one line of its own and a hint (exit 2)", async () => {
    const unknown = await cli(["jobs", "list", "--colour"], { EDGECRON_TOKEN: "t" });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: unknown flag --colour\n  see: edgecron jobs list --help\n");
    const missing = await cli(["jobs", "get", "job_1", "--url"], { EDGECRON_TOKEN: "t" });
    expect(missing.stderr).toBe("error: --url needs a value\n  see: edgecron jobs get --help\n");
  });

  it("says an unknown command is unknown, with a hint (exit 2)", async () => {
    const result = await cli(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command: frobnicate\n  see: edgecron --help\n");
  });
});

describe("edgecron CLI commands", () => {
  let stub: StubServer;
  let api: (args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    stub = await startStub();
    api = (args) => cli([...args, "--url", stub.url], { EDGECRON_TOKEN: "ek_cli" });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });

  it("names --tenant and EDGECRON_TENANT, not an HTTP header, when the admin token lacks a tenant", async () => {
    stub.reply(() => ({
      status: 400,
      body: {
        title: "Bad Request",
        status: 400,
        code: "tenant_required",
        detail: "The admin token must name a tenant with `Edgecron-Tenant: <id>`",
      },
    }));
    const result = await api(["jobs", "list"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--tenant <tenant-id>");
    expect(result.stderr).toContain("EDGECRON_TENANT");
    expect(result.stderr).not.toContain("Edgecron-Tenant");
  });

  it("shows each shard's tz database version and re-derivation progress for `tzdata`", async () => {
    stub.reply(() => ({
      status: 200,
      body: {
        tzdata: "intl-00aa11bb22cc",
        up_to_date: false,
        shards: [
          {
            shard: 0,
            timers_version: "intl-00aa11bb22cc",
            rederiving_to: null,
            jobs_done: 4,
            jobs_changed: 1,
            jobs_total: 4,
            started_at: null,
            finished_at: null,
          },
          {
            shard: 1,
            timers_version: "intl-99ff88ee77dd",
            rederiving_to: "intl-00aa11bb22cc",
            jobs_done: 500,
            jobs_changed: 12,
            jobs_total: 1200,
            started_at: null,
            finished_at: null,
          },
        ],
      },
    }));
    const result = await api(["tzdata"]);
    expect(result.code).toBe(0);
    expect(stub.requests[0]?.path).toBe("/v1/tzdata");
    expect(result.stdout).toContain("tz database intl-00aa11bb22cc: re-deriving");
    expect(result.stdout).toMatch(/1\s+intl-99ff88ee77dd\s+intl-00aa11bb22cc\s+500\/1200/);
  });

  it("takes a CRON_TZ= prefix as the zone of the expression", async () => {
    stub.reply(() => ({ status: 201, body: sampleJob() }));
    const args = ["jobs", "create", "--name", "n", "--target", "https://example.com/hook", "--cron"];
    const result = await api([...args, "CRON_TZ=Europe/Paris 0 9 * * *"]);
    expect(result.code).toBe(0);
    expect(stub.requests[0]?.json()).toMatchObject({
      schedule: {
        type: "cron",
        expr: "0 9 * * *",
        timezone: "Europe/Paris",
      },
    });
    const clash = await api([...args, "CRON_TZ=Europe/Paris 0 9 * * *", "--tz", "Asia/Tokyo"]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain("give the zone once, with --tz");
    const bare = await api([...args, "CRON_TZ=Europe/Paris"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("or use --tz <zone>");
    expect(stub.requests).toHaveLength(1);
  });

  it("updates only the fields given, with If-Match from --if-version", async () => {
    stub.reply(() => ({ status: 200, body: sampleJob({ version: 4, name: "renamed" }) }));
    const result = await api([
      "jobs",
      "update",
      "job_01",
      "--name",
      "renamed",
      "--target",
      "https://example.com/new",
      "--if-version",
      "3",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^updated job_01 \(version 4\)\n/);
    const request = stub.requests[0];
    expect(`${request?.method} ${request?.path}`).toBe("PATCH /v1/jobs/job_01");
    expect(request?.headers["if-match"]).toBe("3");
    // `type` goes too: a job whose target was a binding becomes an HTTP job again.
    expect(request?.json()).toEqual({
      name: "renamed",
      target: { type: "http", url: "https://example.com/new" },
    });
  });

  it("creates a debounced job from flags and triggers it under a key, printing the fold", async () => {
    stub.reply((request) =>
      request.path.endsWith("/trigger")
        ? {
            status: 202,
            body: {
              run_id: "run_a",
              job_id: "job_01",
              scheduled_at: "2026-11-30T00:00:00.000Z",
              fire_at: "2026-11-30T00:00:30.000Z",
              folded: true,
            },
          }
        : { status: 201, body: sampleJob({ debounce: { period: "30s", mode: "trailing", max_wait: "5m" } }) },
    );
    const create = ["jobs", "create", "--name", "n", "--target", "https://example.com/hook", "--every", "1h"];
    const created = await api([...create, "--debounce", "30s", "--debounce-max-wait", "5m"]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/debounce\s+trailing 30s, at most 5m\n/);
    expect(stub.requests[0]?.json()).toMatchObject({
      debounce: { period: "30s", mode: "trailing", max_wait: "5m" },
    });
    const triggered = await api(["jobs", "trigger", "job_01", "--debounce-key", "acct-1"]);
    expect(triggered.code).toBe(0);
    expect(triggered.stdout).toMatch(/folded\s+yes/);
    expect(stub.requests[1]?.json()).toEqual({ debounce_key: "acct-1" });
    const plain = await api(["jobs", "trigger", "job_01"]);
    expect(plain.code).toBe(0);
    expect(stub.requests[2]?.body).toBe("");
    const orphan = await api([...create, "--debounce-mode", "leading"]);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain("go with --debounce <period>");
    expect(stub.requests).toHaveLength(3);
  });

  it.each([
    [["jobs", "bulk", "delete", "--metadata", "{}"], "--metadata is a JSON object of at least one key"],
    [["jobs", "bulk", "delete", "--metadata", "[]"], "--metadata is a JSON object of at least one key"],
    [["jobs", "bulk", "delete", "--metadata", "null"], "--metadata is a JSON object of at least one key"],
    [["jobs", "bulk", "delete", "--metadata", '{"team": ""}'], '--metadata key "team" must not be empty'],
    [["jobs", "bulk", "delete", "--metadata", ""], "--metadata must not be empty"],
    [["jobs", "bulk", "pause", "--name-prefix", ""], "--name-prefix must not be empty"],
    [["jobs", "bulk", "pause", "--status", ""], "--status must not be empty"],
    [["jobs", "bulk", "pause", "--created-before", " "], "--created-before must not be empty"],
    [["jobs", "list", "--name", ""], "--name must not be empty"],
    [["jobs", "list", "--status", ""], "--status must not be empty"],
    [["runs", "list", "--job", ""], "--job must not be empty"],
    [["runs", "list", "--state", ""], "--state must not be empty"],
    [["dlq", "list", "--job", ""], "--job must not be empty"],
    [["alerts", "list", "--kind", ""], "--kind must not be empty"],
  ])("refuses the empty filter of %j (exit 2, nothing sent)", async (args, message) => {
    const result = await api(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(stub.requests).toHaveLength(0);
  });

  it("refuses an update with nothing to change (exit 2, nothing sent)", async () => {
    const result = await api(["jobs", "update", "job_01"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nothing to change");
    expect(stub.requests).toHaveLength(0);
  });

  it("backfills a range and prints what was created and skipped", async () => {
    stub.reply(() => ({ status: 202, body: { created: 2, skipped: 1, run_ids: ["run_a", "run_b"] } }));
    const range = ["--from", "2026-11-30T00:00:00Z", "--to", "2026-11-30T03:00:00Z"];
    const result = await api(["jobs", "backfill", "job_01", ...range]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/created\s+2\nskipped\s+1\nruns\s+run_a\n\s+run_b\n/);
    expect(stub.requests[0]?.path).toBe("/v1/jobs/job_01/backfill");
    expect(stub.requests[0]?.json()).toEqual({ from: "2026-11-30T00:00:00Z", to: "2026-11-30T03:00:00Z" });
    const missing = await api(["jobs", "backfill", "job_01", "--from", "2026-11-30T00:00:00Z"]);
    expect(missing.code).toBe(2);
  });

  it("lists a tenant's keys and revokes one", async () => {
    stub.reply((request) =>
      request.method === "GET"
        ? {
            status: 200,
            body: {
              data: [
                {
                  id: "key_1",
                  tenant_id: "ten_1",
                  name: "ci",
                  key_prefix: "ek_0123abcd",
                  created_at: "2026-11-29T00:00:00.000Z",
                  revoked_at: null,
                },
              ],
            },
          }
        : { status: 200, body: { id: "key_1", revoked_at: "2026-12-01T00:00:00.000Z" } },
    );
    const list = await api(["keys", "list", "--tenant-id", "ten_1"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+PREFIX\s+NAME\s+CREATED\s+REVOKED\nkey_1\s+ek_0123abcd\s+ci\s+/);
    const revoke = await api(["keys", "revoke", "key_1"]);
    expect(revoke.stdout).toBe("revoked key_1 at 2026-12-01T00:00:00.000Z\n");
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/api-keys?tenant_id=ten_1",
      "DELETE /v1/api-keys/key_1",
    ]);
  });

  it("sets a tenant's weight and keeps the limits it overrides", async () => {
    const limits = (weight: number) => ({
      tenant_id: "ten_1",
      active_jobs: 50,
      creates_per_second: 2000,
      triggers_per_second: null,
      concurrent_calls: null,
      weight,
      overridden:
        weight === 1
          ? ["active_jobs", "triggers_per_second"]
          : ["active_jobs", "triggers_per_second", "weight"],
      defaults: {
        active_jobs: 100000,
        creates_per_second: 2000,
        triggers_per_second: null,
        concurrent_calls: null,
        weight: 1,
      },
      dispatch: null,
    });
    stub.reply((request) => ({ status: 200, body: limits(request.method === "GET" ? 1 : 3) }));
    const bad = await api(["tenants", "weight", "--tenant-id", "ten_1", "--weight", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--weight must be an integer from 1 to 100");
    const set = await api(["tenants", "weight", "--tenant-id", "ten_1", "--weight", "3"]);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/weight\s+3\n/);
    expect(set.stdout).toMatch(/creates_per_second\s+2000 \(default\)/);
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/tenants/ten_1/limits",
      "PUT /v1/tenants/ten_1/limits",
    ]);
    expect(stub.requests[1]?.json()).toEqual({ weight: 3, active_jobs: 50, triggers_per_second: null });
  });
});
