#!/usr/bin/env node
// `node scripts/apply-migrations.mjs --remote | --local [--persist-to DIR] [--config FILE]`: applies
// the D1 migrations to every D1 database in wrangler.toml (or FILE: wrangler.production.toml for
// `npm run deploy:production`), the control database and each job database, as a deploy needs
// before `wrangler deploy`.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyAllD1Migrations } from "./lib/d1-migrations.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const configFlag = args.indexOf("--config");
const configPath = join(root, configFlag >= 0 ? (args[configFlag + 1] ?? "wrangler.toml") : "wrangler.toml");
const where = configFlag >= 0 ? args.filter((_, i) => i !== configFlag && i !== configFlag + 1) : args;
try {
  const output = await applyAllD1Migrations({
    wrangler: process.env.EDGECRON_WRANGLER ?? join(root, "node_modules", ".bin", "wrangler"),
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    configPath,
    where,
  });
  process.stdout.write(`${output}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
