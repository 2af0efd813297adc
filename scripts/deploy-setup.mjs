#!/usr/bin/env node
// `npm run deploy:setup`: creates the Cloudflare resources edgecron needs (D1 database, dispatch and
// dead-letter queues, dedup KV namespace) and writes their ids into wrangler.toml. Safe to re-run:
// resources that already exist are looked up instead. Needs `wrangler login` (or CLOUDFLARE_API_TOKEN).
//
// EDGECRON_WRANGLER overrides the wrangler binary and --config the file to rewrite (tests use both).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  findD1DatabaseId,
  findKvNamespaceId,
  parseD1DatabaseId,
  parseKvNamespaceId,
  rewriteWranglerToml,
} from "./lib/wrangler-config.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const WRANGLER = process.env.EDGECRON_WRANGLER ?? join(ROOT, "node_modules", ".bin", "wrangler");
const configFlag = process.argv.indexOf("--config");
const CONFIG = configFlag > 0 ? (process.argv[configFlag + 1] ?? "") : join(ROOT, "wrangler.toml");

const DATABASE = "edgecron";
const QUEUES = ["edgecron-dispatch", "edgecron-dead-letters", "edgecron-side-deliveries"];
const KV_NAMESPACE = "DEDUP_KV";
const ALREADY_EXISTS = /already (exists|taken)|is already in use/i;

/**
 * Runs wrangler, echoes its output, and returns it with the exit status.
 * @param {string[]} args
 */
function wrangler(args) {
  console.log(`$ wrangler ${args.join(" ")}`);
  const result = spawnSync(WRANGLER, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  process.stdout.write(output.endsWith("\n") || output === "" ? output : `${output}\n`);
  return { ok: result.status === 0, output };
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`\ndeploy:setup failed: ${message}`);
  process.exit(1);
}

function createDatabase() {
  const created = wrangler(["d1", "create", DATABASE, "--config", CONFIG]);
  const id = created.ok ? parseD1DatabaseId(created.output) : null;
  if (id) return id;
  if (created.ok || !ALREADY_EXISTS.test(created.output))
    fail(`could not create the D1 database ${DATABASE}`);
  const listed = wrangler(["d1", "list", "--json", "--config", CONFIG]);
  return (
    findD1DatabaseId(listed.output, DATABASE) ?? fail(`D1 database ${DATABASE} exists but was not listed`)
  );
}

function createQueues() {
  for (const queue of QUEUES) {
    const created = wrangler(["queues", "create", queue, "--config", CONFIG]);
    if (!created.ok && !ALREADY_EXISTS.test(created.output)) fail(`could not create the queue ${queue}`);
  }
}

function createKvNamespace() {
  const created = wrangler(["kv", "namespace", "create", KV_NAMESPACE, "--config", CONFIG]);
  const id = created.ok ? parseKvNamespaceId(created.output) : null;
  if (id) return id;
  if (created.ok || !ALREADY_EXISTS.test(created.output))
    fail(`could not create the KV namespace ${KV_NAMESPACE}`);
  const listed = wrangler(["kv", "namespace", "list", "--config", CONFIG]);
  return (
    findKvNamespaceId(listed.output, KV_NAMESPACE) ??
    fail(`KV namespace ${KV_NAMESPACE} exists but was not listed`)
  );
}

const d1DatabaseId = createDatabase();
createQueues();
const kvNamespaceId = createKvNamespace();
writeFileSync(CONFIG, rewriteWranglerToml(readFileSync(CONFIG, "utf8"), { d1DatabaseId, kvNamespaceId }));
console.log(
  `\nwrote database_id = "${d1DatabaseId}" and the DEDUP_KV id = "${kvNamespaceId}" into ${CONFIG}`,
);
console.log("next:\n  npx wrangler secret put EDGECRON_ADMIN_TOKEN\n  npm run deploy");
