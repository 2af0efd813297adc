// vitest globalSetup for the e2e and browser suites: applies the D1 migrations of every database
// in wrangler.toml once, to a template state directory that `startScheduler` copies for each
// fresh server. Each `wrangler d1 migrations apply` is a wrangler start of its own (~4 s, three
// databases side by side), and the suites start about twenty fresh servers. Suites that prove
// migrations from nothing (`npm start`, the layout move) still run them for real.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { applyAllD1Migrations } from "../../scripts/lib/d1-migrations.mjs";
import { migrationTarget } from "./migration-target";

export default async function setup(project: TestProject) {
  const templateDir = mkdtempSync(join(tmpdir(), "edgecron-e2e-migrated-"));
  await applyAllD1Migrations(migrationTarget(join(templateDir, "state")));
  project.provide("migratedStateDir", join(templateDir, "state"));
  return () => rmSync(templateDir, { recursive: true, force: true });
}
