import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  const result = spawnSync(process.execPath, [SCRIPT, "--root", root, ...flags], { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const CLEAN = {
  "src/core/schedule.ts": `import { DateTime } from "luxon";\nimport { z } from "zod";\nimport type { Spec } from "./spec";\nexport const at = (spec: Spec) => DateTime.fromMillis(spec.ms, { zone: z.string().parse("UTC") });\n`,
  "src/core/spec.ts": "export interface Spec { ms: number }\n",
  "src/db/jobs.ts": `export const loadJob = (db: D1Database) => db.prepare("SELECT 1").first();\n`,
  "src/shard/client.ts":
    "export const shardStub = (env: Env) => env.SHARD_SCHEDULER.get(env.SHARD_SCHEDULER.idFromName('0'));\n",
  // Comments and strings never count as call sites.
  "src/api/app.ts": `import { loadJob } from "../db/jobs";\n// never env.DB.prepare( here, nor shardStub\nexport const label = "shardStub .prepare(";\nexport { loadJob };\n`,
  "durable-objects/shard.tsx": `import { at } from "../src/core/schedule";\nexport const view = () => <p>{String(at)}</p>;\n`,
};

afterEach(() => {
  for (const root of fixtures.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-structure", () => {
  it("passes on this repository", () => {
    const { status, output } = runCheck(ROOT);
    expect(output).toContain("structure check passed");
    expect(status).toBe(0);
  });

  it("passes on a tree that keeps every rule", () => {
    const { status, output } = runCheck(fixture(CLEAN));
    expect(output).toContain("structure check passed (6 files)");
    expect(status).toBe(0);
  });

  it("lists every planted violation and exits 1", () => {
    const root = fixture({
      ...CLEAN,
      "src/api/routes/jobs.ts": `import { app } from "../app-routes";\nexport const jobs = () => app;\n`,
      "src/api/app-routes.tsx": `import type { jobs } from "./routes/jobs";\nexport const app = <div />;\nexport type Jobs = typeof jobs;\n`,
      "src/queue/consumer.ts": `import { shardStub } from "../shard/client";\nexport const send = (env: Env) => { env.DB.prepare("DELETE FROM runs"); return shardStub(env); };\n`,
      "durable-objects/raw.ts": "export const raw = (env: Env) => env.SHARD_SCHEDULER;\n",
      "src/api/raw-gate.ts": "export const gate = (env: Env) => env.FLOW_GATE;\n",
      "src/core/bad.ts": `import { Hono } from "hono";\nimport { readFileSync } from "node:fs";\nimport { loadJob } from "../db/jobs";\nexport { Hono, readFileSync, loadJob };\n`,
      "src/core/lost.ts": `export { gone } from "./missing";\n`,
      "src/client/index.ts": `import { loadJob } from "../db/jobs";\nimport type { Spec } from "../core/spec";\nexport { loadJob };\nexport type { Spec };\n`,
      "src/queue/sign.ts": `import { verify } from "../client/verify";\nimport { cli } from "../cli/main";\nexport { verify, cli };\n`,
      "src/client/verify.ts": "export const verify = 1;\n",
      "src/cli/main.ts": `import { at } from "../core/schedule";\nimport { loadJob } from "../db/jobs";\nexport const cli = [at, loadJob];\n`,
    });
    const { status, output } = runCheck(root);
    expect(status).toBe(1);
    expect(output).toContain("import cycle: src/api/app-routes.tsx > src/api/routes/jobs.ts");
    expect(output).toContain("D1 statement outside src/db/: src/queue/consumer.ts: line 2");
    expect(output).toContain(
      "shard access outside src/shard/client.ts: src/queue/consumer.ts: shardStub line 1",
    );
    expect(output).toContain(
      "shard access outside src/shard/client.ts: durable-objects/raw.ts: SHARD_SCHEDULER line 1",
    );
    expect(output).toContain(
      "flow gate access outside src/gate/client.ts: src/api/raw-gate.ts: FLOW_GATE line 1",
    );
    expect(output).toContain('src/core imports "hono" in src/core/bad.ts');
    expect(output).toContain('src/core imports "node:fs" in src/core/bad.ts');
    expect(output).toContain('src/core imports "../db/jobs" in src/core/bad.ts');
    expect(output).toContain("unresolved import (hides cycles): ./missing");
    // The Worker and the programs for users stay apart; verify.ts (the signature format), type
    // imports and the CLI's use of the pure core are the allowed crossings.
    expect(output).toContain('client imports worker code: src/client/index.ts: line 1 ("../db/jobs")');
    expect(output).toContain('worker imports cli code: src/queue/sign.ts: line 2 ("../cli/main")');
    expect(output).toContain('cli imports worker code: src/cli/main.ts: line 2 ("../db/jobs")');
    expect(output).not.toContain("../client/verify");
    expect(output).not.toContain("../core/spec");
    expect(output).not.toContain("../core/schedule");
    expect(output).not.toContain("src/api/app.ts");
    expect(output).toContain("structure check failed: 12 violation(s)");
  });
});
