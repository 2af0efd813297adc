// `npm run migrate:layout` against a real `wrangler dev`: a deployment whose jobs are still in
// the control database's own `jobs` table (the single-database layout) is served while they
// move, the Worker is killed (SIGKILL) while the command runs and restarted on the same state,
// the command carries on by itself, and afterwards every job is where the new layout looks.
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  createTenantWithKey,
  ROOT,
  removeState,
  type SchedulerProcess,
  startScheduler,
  waitUntil,
} from "./harness";

const JOBS = 24;
const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
const QUIET_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
// Tests drive the moves: no maintenance pass moving jobs behind the command's back.
const VARS = { MAINTENANCE_INTERVAL_MS: "0" };
// Every start runs the real `wrangler d1 migrations apply` (the harness otherwise copies a
// pre-migrated state): the migrations must hold on a fresh and on a moved-back database.
const COLUMNS = [
  "id",
  "tenant_id",
  "name",
  "spec_json",
  "status",
  "version",
  "shard",
  "synced_version",
  "idempotency_key",
  "request_hash",
  "created_at_ms",
  "updated_at_ms",
];

function d1(stateDir: string, binding: string, sql: { command: string } | { file: string }): unknown[] {
  const where = "command" in sql ? ["--command", sql.command] : ["--file", sql.file];
  const result = spawnSync(
    WRANGLER,
    ["d1", "execute", binding, "--local", "--persist-to", join(stateDir, "state"), "--json", ...where],
    { cwd: ROOT, env: QUIET_ENV, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`d1 execute ${binding}: ${result.stdout}${result.stderr}`);
  const parsed = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as { results: unknown[] }[];
  return parsed.flatMap((statement) => statement.results ?? []);
}

const literal = (value: unknown) =>
  value === null
    ? "NULL"
    : typeof value === "number"
      ? String(value)
      : `'${String(value).replaceAll("'", "''")}'`;

/** Puts the jobs back where the single-database layout kept them: in DB's own `jobs` table. */
function moveJobsToLegacyTable(stateDir: string): number {
  const rows = ["DB_JOBS_0", "DB_JOBS_1"].flatMap((binding) =>
    d1(stateDir, binding, { command: "SELECT * FROM jobs" }),
  ) as Record<string, unknown>[];
  const file = join(stateDir, "legacy.sql");
  writeFileSync(
    file,
    rows
      .map(
        (row) =>
          `INSERT INTO jobs (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => literal(row[c])).join(", ")});`,
      )
      .join("\n"),
  );
  d1(stateDir, "DB", { file });
  for (const binding of ["DB_JOBS_0", "DB_JOBS_1"]) d1(stateDir, binding, { command: "DELETE FROM jobs" });
  return rows.length;
}

let server: SchedulerProcess | undefined;
afterAll(async () => {
  await server?.kill();
  if (server) removeState(server.stateDir);
});

describe("npm run migrate:layout", () => {
  it("moves a single-database deployment's jobs, carrying on across a SIGKILL of the Worker", async () => {
    server = await startScheduler({ vars: VARS, migrate: "apply" });
    const { key, api: client } = await createTenantWithKey(server.baseUrl, { name: "layout" });
    const created = await client<{ results: { job: { id: string } }[] }>("POST", "/v1/jobs/batch", {
      jobs: Array.from({ length: JOBS }, (_, i) => ({
        name: `layout-${i}`,
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        target: { url: "https://example.com/layout" },
      })),
    });
    const ids = created.body.results.map((result) => result.job.id).sort();
    expect(ids).toHaveLength(JOBS);
    const { stateDir, port } = server;
    await server.stop();
    expect(moveJobsToLegacyTable(stateDir)).toBe(JOBS);

    // The upgraded deployment reads the old table while the jobs move.
    server = await startScheduler({
      stateDir,
      port,
      vars: { ...VARS, LEGACY_JOBS: "read" },
      migrate: "apply",
    });
    const listed = await apiClient(server.baseUrl, key)<{ data: { id: string }[] }>(
      "GET",
      "/v1/jobs?limit=100",
    );
    expect(listed.body.data.map((job) => job.id).sort()).toEqual(ids);

    // The command, 2 jobs a call; the Worker dies after its first batch and comes back.
    const command = spawn(
      process.execPath,
      [
        join(ROOT, "scripts", "migrate-layout.mjs"),
        "--url",
        server.baseUrl,
        "--batch",
        "2",
        "--pause-ms",
        "400",
      ],
      { cwd: ROOT, env: { ...process.env, EDGECRON_ADMIN_TOKEN: ADMIN_TOKEN } },
    );
    let output = "";
    command.stdout.on("data", (chunk) => {
      output += chunk;
    });
    command.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => command.once("exit", resolve));
    await waitUntil(() => /moved 2 /.test(output), { timeoutMs: 30_000, what: "the first batch" });
    await server.kill();
    server = await startScheduler({
      stateDir,
      port,
      vars: { ...VARS, LEGACY_JOBS: "read" },
      migrate: "apply",
    });
    expect(await exited, output).toBe(0);
    expect(output).toMatch(/move failed/);
    expect(output).toMatch(/0 left in the legacy table/);

    // After the move: LEGACY_JOBS off, every job found where the new layout looks, none twice.
    await server.stop();
    server = await startScheduler({ stateDir, port, vars: VARS, migrate: "apply" });
    const moved = apiClient(server.baseUrl, key);
    const all = await moved<{ data: { id: string }[] }>("GET", "/v1/jobs?limit=100");
    expect(all.body.data.map((job) => job.id).sort()).toEqual(ids);
    for (const id of ids.slice(0, 5)) expect((await moved("GET", `/v1/jobs/${id}`)).status).toBe(200);
    const rest = await apiClient(server.baseUrl, ADMIN_TOKEN)("POST", "/v1/admin/job-layout/moves", {});
    expect(rest.body).toEqual({ moved: 0, remaining: 0 });
  }, 240_000);
});
