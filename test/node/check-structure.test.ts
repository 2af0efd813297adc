import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "check-structure.mjs");
const fixtures: string[] = [];

/** A throwaway repository holding exactly `files` (path -> source). */
function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "edgecron-structure-"));
  fixtures.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

function runCheck(root: string, ...flags: string[]) {
  return runCheckWith({}, root, ...flags);
}

function runCheckWith(env: Record<string, string>, root: string, ...flags: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, "--root", root, ...flags], {
    encoding: "utf8",
    env: { ...process.env, CHECK_STALE_PATHS: "", ...env },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const CLEAN = {
  "src/core/schedules/schedule.ts": `import { DateTime } from "luxon";\nimport { z } from "zod";\nimport type { Spec } from "../common/spec";\nexport const at = (spec: Spec) => DateTime.fromMillis(spec.ms, { zone: z.string().parse("UTC") });\n`,
  "src/core/common/spec.ts": "export interface Spec { ms: number }\n",
  "src/db/jobs.ts": `export const loadJob = (db: D1Database) => db.prepare("SELECT 1").first();\n`,
  "src/shard/client.ts":
    "export const shardStub = (env: Env) => env.SHARD_SCHEDULER.get(env.SHARD_SCHEDULER.idFromName('0'));\n",
  // Comments and strings never count as call sites.
  "src/api/app.ts": `// never env.DB.prepare( here, nor shardStub\nexport const label = "shardStub .prepare(";\n`,
  "durable-objects/shard/view.tsx": `import { at } from "../../src/core/schedules/schedule";\nexport const view = () => <p>{String(at)}</p>;\n`,
};

afterEach(() => {
  for (const root of fixtures.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-structure", () => {
  // The whole repository, paths in docs and comments included: ~10 s alone, more beside other suites.
  it("passes on this repository", () => {
    const { status, output } = runCheck(ROOT);
    expect(output).toContain("structure check passed");
    expect(status).toBe(0);
  }, 90_000);

  it("passes on a tree that keeps every rule", () => {
    const { status, output } = runCheck(fixture(CLEAN));
    expect(output).toContain("structure check passed (6 files)");
    expect(status).toBe(0);
  });

  it("lists every planted violation and exits 1", () => {
    const root = fixture({
      ...CLEAN,
      "src/api/v1/routes/jobs.ts": `import { app } from "../app-routes";\nexport const jobs = () => app;\n`,
      "src/api/v1/app-routes.tsx": `import type { jobs } from "./routes/jobs";\nexport const app = <div />;\nexport type Jobs = typeof jobs;\n`,
      "src/delivery/consumer.ts": `import { shardStub } from "../shard/client";\nexport const send = (env: Env) => { env.DB.prepare("DELETE FROM runs"); return shardStub(env); };\n`,
      "durable-objects/shard/raw.ts": "export const raw = (env: Env) => env.SHARD_SCHEDULER;\n",
      "src/api/v1/raw-gate.ts": "export const gate = (env: Env) => env.FLOW_GATE;\n",
      "src/core/common/bad.ts": `import { Hono } from "hono";\nimport { readFileSync } from "node:fs";\nimport { loadJob } from "../../db/jobs";\nexport { Hono, readFileSync, loadJob };\n`,
      "src/core/common/lost.ts": `export { gone } from "./missing";\n`,
      "src/client/index.ts": `import { loadJob } from "../db/jobs";\nimport type { Spec } from "../core/common/spec";\nexport { loadJob };\nexport type { Spec };\n`,
      "src/delivery/sign.ts": `import { verify } from "../client/verify";\nimport { cli } from "../cli/main";\nexport { verify, cli };\n`,
      "src/client/verify.ts": "export const verify = 1;\n",
      "src/cli/main.ts": `import { at } from "../core/schedules/schedule";\nimport { loadJob } from "../db/jobs";\nexport const cli = [at, loadJob];\n`,
      // A Worker file in no room would escape the rooms' rule.
      "src/stray.ts": "export const stray = 1;\n",
      // The shard's v23 runs table is written only where the one-time import and the test
      // projection live (a read elsewhere is fine): its state is the journal now.
      "durable-objects/shard/wheel/tick.ts":
        "export const tick = (sql: SqlStorage, id: string) => {\n  sql.exec(`SELECT * FROM runs`);\n  sql.exec(`UPDATE runs SET due_at_ms = NULL WHERE run_id = ?`, id);\n};\n",
      "durable-objects/shard/store/legacy-state.ts":
        'export const clear = (sql: SqlStorage) => sql.exec("DELETE FROM runs WHERE 1");\n',
    });
    const { status, output } = runCheck(root);
    expect(status).toBe(1);
    expect(output).toContain("import cycle: src/api/v1/app-routes.tsx > src/api/v1/routes/jobs.ts");
    expect(output).toContain("D1 statement outside src/db/: src/delivery/consumer.ts: line 2");
    expect(output).toContain(
      "a write to the shard's runs table outside durable-objects/shard/store/legacy-state.ts, durable-objects/shard/test-tables.ts, durable-objects/shard/schema.ts: durable-objects/shard/wheel/tick.ts: line 3",
    );
    expect(output).not.toContain("durable-objects/shard/store/legacy-state.ts: line");
    expect(output).toContain("in no room (add it to one, or a room for it to ROOMS): src/stray.ts");
    expect(output).toContain(
      "shard access outside src/shard/client.ts, src/shard/history-client.ts, src/shard/test-hook-client.ts: src/delivery/consumer.ts: shardStub line 1",
    );
    expect(output).toContain(
      "shard access outside src/shard/client.ts, src/shard/history-client.ts, src/shard/test-hook-client.ts: durable-objects/shard/raw.ts: SHARD_SCHEDULER line 1",
    );
    expect(output).toContain(
      "flow gate access outside src/gate/client.ts: src/api/v1/raw-gate.ts: FLOW_GATE line 1",
    );
    expect(output).toContain('src/core imports "hono" in src/core/common/bad.ts');
    expect(output).toContain('src/core imports "node:fs" in src/core/common/bad.ts');
    expect(output).toContain('src/core imports "../../db/jobs" in src/core/common/bad.ts');
    expect(output).toContain("unresolved import (hides cycles): ./missing");
    // The Worker and the programs for users stay apart; verify.ts (the signature format), type
    // imports and the CLI's use of the pure core are the allowed crossings.
    expect(output).toContain('client imports worker code: src/client/index.ts: line 1 ("../db/jobs")');
    expect(output).toContain('worker imports cli code: src/delivery/sign.ts: line 2 ("../cli/main")');
    expect(output).toContain('cli imports worker code: src/cli/main.ts: line 2 ("../db/jobs")');
    expect(output).not.toContain("../client/verify");
    expect(output).not.toContain("../core/common/spec");
    expect(output).not.toContain("../core/schedules/schedule");
    expect(output).not.toContain("src/api/app.ts");
    // The core is also the lowest room: the same import breaks the rooms' order.
    expect(output).toContain('core imports db: src/core/common/bad.ts ("../../db/jobs")');
    expect(output).toContain("structure check failed: 15 violation(s)");
  });

  it("keeps the core's sub-rooms as layers: no loose file, no sub-room outside the layers, no import sideways or up", () => {
    const root = fixture({
      ...CLEAN,
      "src/core/loose.ts": "export const loose = 1;\n",
      "src/core/misc/thing.ts": "export const thing = 1;\n",
      // runs and schedules share a layer: neither imports the other.
      "src/core/runs/backoff.ts": `import { at } from "../schedules/schedule";\nexport const backoff = at;\n`,
      // The job spec is built from lower layers; a lower layer never imports it back.
      "src/core/jobs/job-spec.ts": `import { backoff } from "../runs/backoff";\nexport const spec = backoff;\n`,
      "src/core/cron/next.ts": `import type { spec } from "../jobs/job-spec";\nexport type Spec = typeof spec;\n`,
    });
    const { status, output } = runCheck(root);
    expect(output).toContain(
      "loose file in src/core (put it in a sub-room of CORE_LAYERS): src/core/loose.ts",
    );
    expect(output).toContain("src/core/misc is in no layer of CORE_LAYERS");
    expect(output).toContain(
      'core/runs imports core/schedules (not a lower layer): src/core/runs/backoff.ts ("../schedules/schedule")',
    );
    expect(output).toContain(
      'core/cron imports core/jobs (not a lower layer): src/core/cron/next.ts ("../jobs/job-spec")',
    );
    expect(output).not.toContain("src/core/jobs/job-spec.ts");
    expect(output).toContain("structure check failed: 4 violation(s)");
    expect(status).toBe(1);
  });

  it("keeps the shard's sub-rooms as layers: no sub-room outside the layers, no import sideways or up, the top-level files above them all", () => {
    const root = fixture({
      ...CLEAN,
      "durable-objects/shard/misc/thing.ts": "export const thing = 1;\n",
      // A lower layer is fine: the dispatch's settings read the bound that firing reads too.
      "durable-objects/shard/instants/dispatch-lead.ts": "export const MAX_LEAD_MS = 60_000;\n",
      "durable-objects/shard/dispatch/pass-settings.ts": `import { MAX_LEAD_MS } from "../instants/dispatch-lead";\nexport const leadMs = MAX_LEAD_MS;\n`,
      // runs and dispatch share a layer: neither imports the other.
      "durable-objects/shard/runs/claims.ts": `import { leadMs } from "../dispatch/pass-settings";\nexport const claim = leadMs;\n`,
      // A sub-room never imports a top-level file: they sit above every layer.
      "durable-objects/shard/alarm-pass.ts": "export const pass = 1;\n",
      "durable-objects/shard/wheel/tick.ts": `import { pass } from "../alarm-pass";\nimport { claim } from "../runs/claims";\nexport const tick = pass + claim;\n`,
      // A lower layer never imports a higher one, not even a type.
      "durable-objects/shard/state/shard-state.ts": `import type { tick } from "../wheel/tick";\nexport type Tick = typeof tick;\n`,
      // The top-level files may import any sub-room.
      "durable-objects/shard/shard-scheduler.ts": `import { tick } from "./wheel/tick";\nimport { leadMs } from "./dispatch/pass-settings";\nexport const alarm = tick + leadMs;\n`,
    });
    const { status, output } = runCheck(root);
    expect(output).toContain("durable-objects/shard/misc is in no layer of SHARD_LAYERS");
    expect(output).toContain(
      'shard/runs imports shard/dispatch (not a lower layer): durable-objects/shard/runs/claims.ts ("../dispatch/pass-settings")',
    );
    expect(output).toContain(
      'shard/wheel imports shard/(loose) (not a lower layer): durable-objects/shard/wheel/tick.ts ("../alarm-pass")',
    );
    expect(output).toContain(
      'shard/state imports shard/wheel (not a lower layer): durable-objects/shard/state/shard-state.ts ("../wheel/tick")',
    );
    expect(output).not.toContain("durable-objects/shard/dispatch/pass-settings.ts");
    expect(output).not.toContain("durable-objects/shard/shard-scheduler.ts");
    expect(output).not.toContain("loose file in durable-objects/shard");
    expect(output).toContain("structure check failed: 4 violation(s)");
    expect(status).toBe(1);
  });

  it("refuses an import against the rooms' order: a door importing another door or a store, a lower room a higher one", () => {
    const root = fixture({
      ...CLEAN,
      "src/api/v1/routes/tenants.ts": "export const forget = (id: string) => id;\n",
      "src/api/http/problem.ts": "export const problem = 1;\n",
      "src/delivery/secrets.ts": `import { forget } from "../api/v1/routes/tenants";\nexport const drop = forget;\n`,
      "src/service/job-writes.ts": `import type { problem } from "../api/http/problem";\nexport type P = typeof problem;\n`,
      "src/service/redrive.ts": `import { loadJob } from "../db/jobs";\nexport { loadJob };\n`,
      // The HTTP doors reach a shard through the service, never the shard client itself.
      "src/shard/client.ts": `${CLEAN["src/shard/client.ts"]}export const claimRuns = () => 1;\n`,
      "src/api/v1/routes/runs.ts": `import { claimRuns } from "../../../shard/client";\nexport const claim = claimRuns;\n`,
      "src/delivery/claims.ts": `import { claimRuns } from "../shard/client";\nexport const claim = claimRuns;\n`,
      // Nor D1: they ask the service, the QStash door as every other.
      "src/api/v1/routes/stats.ts": `import { loadJob } from "../../../db/jobs";\nexport const count = loadJob;\n`,
      "src/console/session.ts": `import type { loadJob } from "../db/jobs";\nexport type Load = typeof loadJob;\n`,
      "src/api/qstash/publish.ts": `import { loadJob } from "../../db/jobs";\nexport const publish = loadJob;\n`,
      // Nor a gate's client.
      "src/gate/client.ts": "export const gateState = () => 0;\n",
      "src/api/http/gates.ts": `import { gateState } from "../../gate/client";\nexport const state = gateState;\n`,
    });
    const { status, output } = runCheck(root);
    expect(output).toContain('v1 imports shard-client: src/api/v1/routes/runs.ts ("../../../shard/client")');
    expect(output).not.toContain("src/delivery/claims.ts");
    expect(output).toContain('delivery imports v1: src/delivery/secrets.ts ("../api/v1/routes/tenants")');
    expect(output).toContain('service imports http: src/service/job-writes.ts ("../api/http/problem")');
    expect(output).not.toContain("src/service/redrive.ts");
    expect(output).toContain('v1 imports db: src/api/v1/routes/stats.ts ("../../../db/jobs")');
    expect(output).toContain('console imports db: src/console/session.ts ("../db/jobs")');
    expect(output).toContain('qstash-api imports db: src/api/qstash/publish.ts ("../../db/jobs")');
    expect(output).toContain('http imports gate-client: src/api/http/gates.ts ("../../gate/client")');
    expect(output).toContain("structure check failed: 7 violation(s)");
    expect(status).toBe(1);
  });

  describe("migrations", () => {
    const LOCK_SCRIPT = join(ROOT, "scripts", "lock-migrations.mjs");
    const SCHEMA = (entries: string[]) =>
      `const MIGRATIONS: readonly string[] = [\n${entries.map((sql) => `  \`${sql}\`,`).join("\n")}\n];\nexport { MIGRATIONS };\n`;
    const MIGRATED = {
      ...CLEAN,
      "migrations/0001_init.sql": "CREATE TABLE a (id TEXT);\n",
      "migrations/0003_more.sql": "CREATE TABLE b (id TEXT);\n",
      "migrations-jobs/0001_jobs.sql": "CREATE TABLE jobs (id TEXT);\n",
      "durable-objects/shard/schema.ts": SCHEMA([
        "CREATE TABLE runs (id TEXT)",
        "CREATE INDEX r ON runs(id)",
      ]),
    };
    /** A copy of the lock tool beside the fixture, so it locks the fixture's migrations. */
    function lockedFixture(files: Record<string, string>): string {
      const root = fixture({
        ...files,
        "scripts/lock-migrations.mjs": readFileSync(LOCK_SCRIPT, "utf8"),
        "scripts/lib/schema-lock.mjs": readFileSync(join(ROOT, "scripts", "lib", "schema-lock.mjs"), "utf8"),
      });
      symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
      const locked = spawnSync(process.execPath, [join(root, "scripts", "lock-migrations.mjs")], {
        encoding: "utf8",
      });
      expect(locked.status, locked.stderr).toBe(0);
      return root;
    }

    it("passes when every migration is locked as it is", () => {
      const { status, output } = runCheck(lockedFixture(MIGRATED));
      expect(output).toContain("structure check passed");
      expect(status).toBe(0);
    });

    it("refuses an edited or removed migration, D1 and Durable Object alike", () => {
      const root = lockedFixture(MIGRATED);
      writeFileSync(join(root, "migrations/0001_init.sql"), "DROP TABLE IF EXISTS a;\n");
      rmSync(join(root, "migrations-jobs/0001_jobs.sql"));
      writeFileSync(
        join(root, "durable-objects/shard/schema.ts"),
        SCHEMA(["CREATE TABLE runs (id TEXT)", "CREATE INDEX r ON runs(id, id)"]),
      );
      const { status, output } = runCheck(root);
      expect(status).toBe(1);
      expect(output).toContain("locked migration edited: migrations/0001_init.sql");
      expect(output).toContain("locked migration removed: migrations-jobs/0001_jobs.sql");
      expect(output).toContain("locked migration edited: durable-objects/shard/schema.ts#2");
      expect(output).not.toContain("shard-schema.ts#1");
    });

    it("asks for a new migration to be locked, and refuses one numbered before a locked one", () => {
      const root = lockedFixture(MIGRATED);
      writeFileSync(join(root, "migrations/0002_between.sql"), "CREATE TABLE c (id TEXT);\n");
      writeFileSync(join(root, "migrations/0004_after.sql"), "CREATE TABLE d (id TEXT);\n");
      writeFileSync(join(root, "migrations/0005 Bad Name.sql"), "SELECT 1;\n");
      const { status, output } = runCheck(root);
      expect(status).toBe(1);
      expect(output).toContain(
        "new migration migrations/0002_between.sql sorts before a locked one: number it after 3",
      );
      expect(output).toContain("migration not in scripts/schema-lock.json: migrations/0004_after.sql");
      expect(output).toContain("migration name is not NNNN_words.sql: migrations/0005 Bad Name.sql");
    });

    it("locks only new migrations and never an edit", () => {
      const root = lockedFixture(MIGRATED);
      writeFileSync(join(root, "migrations/0004_after.sql"), "CREATE TABLE d (id TEXT);\n");
      const lock = () =>
        spawnSync(process.execPath, [join(root, "scripts", "lock-migrations.mjs")], { encoding: "utf8" });
      const added = lock();
      expect(added.status).toBe(0);
      expect(added.stdout).toContain("added migrations/0004_after.sql");
      expect(runCheck(root).status).toBe(0);
      writeFileSync(join(root, "migrations/0003_more.sql"), "CREATE TABLE b (id TEXT, v INTEGER);\n");
      const refused = lock();
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("locked migration edited: migrations/0003_more.sql");
      expect(runCheck(root).output).toContain("locked migration edited: migrations/0003_more.sql");
    });
  });

  describe("paths in docs and comments", () => {
    const WITH_PATHS = {
      ...CLEAN,
      "docs/GUIDE.md":
        "The schedule is computed in `src/core/schedules/schedule.ts` (see [the spec](../src/core/common/spec.ts)),\n" +
        "jobs are read by `src/db/jobs` and `docs/GUIDE.md` is this file. Not paths: `test/e2e/**`,\n" +
        "`migrations/NNNN_words.sql`, https://example.com/src/gone.ts.\n" +
        "The old home was `src/core/moved.ts`; see also [gone](./GONE.md).\n",
      "README.md": "# t\n\nRooms: [the API](src/api/app.ts), [the queue](src/queue/consumers/README.md).\n",
      "src/core/common/spec.ts":
        "// Read by ../schedules/schedule.ts and src/api/app.ts; the rules are in ./missing-rules.ts.\nexport interface Spec { ms: number }\n",
    };

    it("reports a path that names nothing, and only reports it with CHECK_STALE_PATHS=0", () => {
      const { status, output } = runCheckWith({ CHECK_STALE_PATHS: "0" }, fixture(WITH_PATHS));
      expect(status).toBe(0);
      expect(output).toContain("structure check passed");
      expect(output).toContain("stale path: docs/GUIDE.md:4: src/core/moved.ts");
      expect(output).toContain("stale path: docs/GUIDE.md:4: ./GONE.md");
      expect(output).toContain("stale path: README.md:3: src/queue/consumers/README.md");
      expect(output).toContain("stale path: src/core/common/spec.ts:1: ./missing-rules.ts");
      // Paths that exist, globs, placeholders and addresses are not reported.
      for (const fine of [
        "src/core/schedules/schedule.ts",
        "../src/core/common/spec.ts",
        "src/db/jobs",
        "test/e2e",
        "NNNN",
        "gone.ts",
      ]) {
        expect(output).not.toMatch(new RegExp(`stale path: [^\\n]*: ${fine.replace(/[.*]/g, "\\$&")}\\n`));
      }
      expect(output.match(/stale path:/g)).toHaveLength(4);
    });

    it("fails on a stale path, and passes once it is fixed", () => {
      const root = fixture(WITH_PATHS);
      const failing = runCheckWith({}, root);
      expect(failing.status).toBe(1);
      expect(failing.output).toContain("stale path: docs/GUIDE.md:4: src/core/moved.ts");
      writeFileSync(
        join(root, "docs/GUIDE.md"),
        "The schedule is computed in `src/core/schedules/schedule.ts`.\n",
      );
      writeFileSync(join(root, "README.md"), "# t\n\nRooms: [the API](src/api/app.ts).\n");
      writeFileSync(
        join(root, "src/core/common/spec.ts"),
        "// Read by ../schedules/schedule.ts.\nexport interface Spec { ms: number }\n",
      );
      const fixed = runCheckWith({}, root);
      expect(fixed.output).not.toContain("stale path");
      expect(fixed.status).toBe(0);
    });
  });
});
