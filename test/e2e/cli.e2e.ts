// The `edgecron` CLI against a real `wrangler dev`, run the way users run it.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  ROOT,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe("edgecron CLI against wrangler dev", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let tenantKey: string;
  const dir = mkdtempSync(join(tmpdir(), "edgecron-cli-e2e-"));

  function cli(args: string[], token: string): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, "bin", "edgecron.mjs"), ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, EDGECRON_URL: server.baseUrl, EDGECRON_TOKEN: token },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
  }
  const asTenant = (...args: string[]) => cli(args, tenantKey);
  const jsonOf = <T>(result: CliResult): T => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    [server, target] = await Promise.all([startScheduler(), startTarget()]);
    const tenant = jsonOf<{ id: string }>(
      await cli(["tenants", "create", "--name", "cli-e2e", "--json"], ADMIN_TOKEN),
    );
    const key = jsonOf<{ key: string }>(
      await cli(["keys", "create", "--tenant-id", tenant.id, "--json"], ADMIN_TOKEN),
    );
    tenantKey = key.key;
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), target?.close()]);
    if (server) removeState(server.stateDir);
  });

  it("shows who the token belongs to", async () => {
    const me = await asTenant("me");
    expect(me.code).toBe(0);
    expect(me.stdout).toMatch(/role\s+tenant/);
  });

  it("creates a job from flags, lists, gets, triggers, pauses, resumes and deletes it", async () => {
    const created = await asTenant(
      "jobs",
      "create",
      "--name",
      "cli-job",
      "--cron",
      "0 9 * * MON-FRI",
      "--tz",
      "Europe/Berlin",
      "--target",
      `${target.url}/cli`,
      "--body",
      '{"hello":"world"}',
      "--json",
    );
    const job = jsonOf<{ id: string; next_fire_times: string[] }>(created);
    expect(job.next_fire_times).toHaveLength(5);

    const list = await asTenant("jobs", "list", "--name", "cli-");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^ID\\s+NAME\\s+STATUS\\s+SCHEDULE\\s+NEXT FIRE\\n${job.id}\\s+cli-job\\s+ACTIVE\\s+cron "0 9 \\* \\* MON-FRI" Europe/Berlin`,
      ),
    );

    expect((await asTenant("jobs", "get", job.id)).stdout).toMatch(/status\s+ACTIVE/);
    const triggered = await asTenant("jobs", "trigger", job.id);
    expect(triggered.code, triggered.stderr).toBe(0);
    await waitUntil(() => target.calls.some((call) => call.path === "/cli"), { what: "the triggered call" });
    const runs = await waitUntil(async () => {
      const result = await asTenant("runs", "list", "--job", job.id);
      return /SUCCEEDED/.test(result.stdout) ? result : undefined;
    });
    expect(runs.stdout).toMatch(/trigger\s+SUCCEEDED\s+1\/\d+/);

    expect((await asTenant("jobs", "pause", job.id)).stdout).toBe(`${job.id} PAUSED\n`);
    expect((await asTenant("jobs", "resume", job.id)).stdout).toBe(`${job.id} ACTIVE\n`);
    expect((await asTenant("jobs", "delete", job.id)).stdout).toBe(`${job.id} DELETED\n`);
  });

  it("updates a job, backfills its past instants, lists keys and names --tenant for the admin", async () => {
    const job = jsonOf<{ id: string; version: number }>(
      await asTenant(
        "jobs",
        "create",
        "--name",
        "cli-changes",
        "--cron",
        "CRON_TZ=Europe/Paris 0 * * * *",
        "--target",
        `${target.url}/changes`,
        "--json",
      ),
    );
    const got = jsonOf<{ schedule: { timezone: string; expr: string } }>(
      await asTenant("jobs", "get", job.id, "--json"),
    );
    expect(got.schedule).toMatchObject({ expr: "0 * * * *", timezone: "Europe/Paris" });
    // Hourly in Paris: a three-hour range in the past holds at least two instants.
    const toMs = Date.now() - 60_000;
    const range = [
      "--from",
      new Date(toMs - 3 * 3_600_000).toISOString(),
      "--to",
      new Date(toMs).toISOString(),
    ];
    const backfilled = jsonOf<{ created: number; run_ids: string[] }>(
      await asTenant("jobs", "backfill", job.id, ...range, "--json"),
    );
    expect(backfilled.created).toBeGreaterThanOrEqual(2);
    expect(backfilled.run_ids).toHaveLength(backfilled.created);

    const updated = jsonOf<{ name: string; version: number; schedule: { expr: string } }>(
      await asTenant(
        "jobs",
        "update",
        job.id,
        "--name",
        "cli-changed",
        "--every",
        "1h",
        "--if-version",
        String(job.version),
        "--json",
      ),
    );
    expect(updated).toMatchObject({
      name: "cli-changed",
      version: job.version + 1,
      schedule: { type: "interval" },
    });
    const stale = await asTenant(
      "jobs",
      "update",
      job.id,
      "--name",
      "again",
      "--if-version",
      String(job.version),
    );
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("version_conflict");

    const me = jsonOf<{ tenant_id: string }>(await asTenant("me", "--json"));
    const keys = await cli(["keys", "list", "--tenant-id", me.tenant_id], ADMIN_TOKEN);
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.stdout).toMatch(/^ID\s+PREFIX\s+NAME\s+CREATED\s+REVOKED\nkey_/);
    expect(keys.stdout).toContain(tenantKey.slice(0, 11));

    const noTenant = await cli(["jobs", "list"], ADMIN_TOKEN);
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toContain("--tenant <tenant-id> or set EDGECRON_TENANT");
    expect((await asTenant("jobs", "delete", job.id)).code).toBe(0);
  });

  it("creates a job from a file", async () => {
    const file = join(dir, "job.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "from-file",
        schedule: { type: "interval", every: "1h" },
        target: { url: `${target.url}/file` },
      }),
    );
    const result = await asTenant("jobs", "create", "--file", file);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/schedule\s+every 1h/);
  });

  it("exits 1 with the problem's field paths on invalid input", async () => {
    const result = await asTenant(
      "jobs",
      "create",
      "--name",
      "bad",
      "--cron",
      "0 0 30 2 *",
      "--target",
      `${target.url}/x`,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+\(400/);
    expect(result.stderr).toContain("schedule.expr:");
    const missing = await asTenant("jobs", "get", "job_does_not_exist");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/404/);
    expect(missing.stderr).toContain("job_does_not_exist");
    // An id shaped like ours that no job has, and a run that is not there: each named.
    const unknownJob = "job_0000000000AAAAAAAAAAAAAAAA";
    expect((await asTenant("jobs", "get", unknownJob)).stderr).toContain(unknownJob);
    expect((await asTenant("jobs", "pause", unknownJob)).stderr).toContain(unknownJob);
    expect((await asTenant("runs", "get", `run_${unknownJob}_1`)).stderr).toContain(`run_${unknownJob}_1`);
  });

  it("shows every field it takes: windows, debounce, flow control and priority in create, get and list --wide", async () => {
    const created = await asTenant(
      "jobs",
      "create",
      "--name",
      "cli-every-field",
      "--cron",
      "0 9 * * *",
      "--tz",
      "Europe/Berlin",
      "--target",
      `${target.url}/fields`,
      "--window",
      "08:00-20:00",
      "--window-days",
      "MON-FRI",
      "--outside",
      "skip",
      "--flexible-window",
      "15m",
      "--debounce",
      "30s",
      "--debounce-max-wait",
      "5m",
    );
    expect(created.code, created.stderr).toBe(0);
    const shown = [
      /^window +MON-FRI 08:00-20:00 \(the schedule's zone\), outside: skip$/m,
      /^flexible window +up to 15m after each instant$/m,
      /^debounce +trailing 30s, at most 5m$/m,
      /^flow control +-$/m,
      /^priority +3$/m,
    ];
    for (const line of shown) expect(created.stdout).toMatch(line);
    const id = /^created (\S+)/.exec(created.stdout)?.[1] ?? "";
    // flow_control and priority have no flags: a file sets them, and get shows them.
    const patch = join(dir, "flow.json");
    writeFileSync(patch, JSON.stringify({ flow_control: { key: "cli-key", rate: 5 }, priority: 1 }));
    expect((await asTenant("jobs", "update", id, "--file", patch)).code).toBe(0);
    const got = await asTenant("jobs", "get", id);
    expect(got.code, got.stderr).toBe(0);
    for (const line of [...shown.slice(0, 3), /^flow control +key cli-key: 5 per 1s$/m, /^priority +1$/m]) {
      expect(got.stdout).toMatch(line);
    }
    const wide = await asTenant("jobs", "list", "--name", "cli-every-field", "--wide");
    expect(wide.code, wide.stderr).toBe(0);
    const [header, row] = wide.stdout.trimEnd().split("\n");
    expect(header).toMatch(/ WINDOW +FLEXIBLE WINDOW +DEBOUNCE +FLOW CONTROL /);
    expect(header).toMatch(/ PRIORITY /);
    for (const text of [
      "MON-FRI 08:00-20:00",
      "up to 15m after each instant",
      "trailing 30s",
      "key cli-key",
    ]) {
      expect(row).toContain(text);
    }
  });

  it("previews a schedule as a table", async () => {
    const result = await asTenant("preview", "0 9 * * *", "--tz", "Europe/Berlin", "--count", "3");
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^1\s+\d{4}-\d\d-\d\dT(07|08):00:00.000Z\s+\d{4}-\d\d-\d\d 09:00:00 GMT\+[12]/);
  });

  it("imports JSON Lines through the batch API and names failing lines", async () => {
    const file = join(dir, "jobs.jsonl");
    const line = (name: string, every = "1h") =>
      JSON.stringify({ name, schedule: { type: "interval", every }, target: { url: `${target.url}/bulk` } });
    writeFileSync(
      file,
      [line("bulk-1"), line("bulk-2"), line("bulk-bad", "5ms"), "", line("bulk-3")].join("\n"),
    );
    const result = await asTenant("import", file, "--chunk", "2");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^created 3, failed 1\nline 3: .+\n {2}schedule\.every: /);
    const list = jsonOf<{ data: { name: string }[] }>(
      await asTenant("jobs", "list", "--name", "bulk-", "--json", "--all"),
    );
    expect(list.data.map((j) => j.name).sort()).toEqual(["bulk-1", "bulk-2", "bulk-3"]);
  });

  it("lists dead letters", async () => {
    const result = await asTenant("dlq", "list", "--json");
    expect(jsonOf<{ data: unknown[] }>(result).data).toBeInstanceOf(Array);
  });
});
