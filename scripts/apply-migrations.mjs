#!/usr/bin/env node
// `node scripts/apply-migrations.mjs --remote | --local [--persist-to DIR]`: applies the D1
// migrations to every D1 database in wrangler.toml (the control database and each job
// database), as `npm run deploy` needs before `wrangler deploy`.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyAllD1Migrations } from "./lib/d1-migrations.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
try {
  const output = await applyAllD1Migrations({
    wrangler: process.env.EDGECRON_WRANGLER ?? join(root, "node_modules", ".bin", "wrangler"),
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    configPath: join(root, "wrangler.toml"),
    where: process.argv.slice(2),
  });
  process.stdout.write(`${output}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
