#!/usr/bin/env node
// `npm run deploy:setup`: creates the Cloudflare resources edgecron needs (every D1 database and
// queue wrangler.toml declares: the control database, the job databases, the dispatch queues and
// the dead-letter queue; the dedup KV namespace) and writes their ids into wrangler.toml. Safe to re-run:
// resources that already exist are looked up instead. Needs `wrangler login` (or CLOUDFLARE_API_TOKEN).
//
// `--scale production` first writes wrangler.production.toml, the layout the capacity model plans
// (scripts/lib/production-layout.mjs), and sets that file up instead of wrangler.toml.
// EDGECRON_WRANGLER overrides the wrangler binary and --config the file to rewrite (tests use both).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PRODUCTION_CONFIG, plannedLayout, productionLayout } from "./lib/production-layout.mjs";
import {
  d1Databases,
  findD1DatabaseId,
  findKvNamespaceId,
  parseD1DatabaseId,
  parseKvNamespaceId,
  producerQueues,
  rewriteWranglerToml,
} from "./lib/wrangler-config.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const WRANGLER = process.env.EDGECRON_WRANGLER ?? join(ROOT, "node_modules", ".bin", "wrangler");
const configFlag = process.argv.indexOf("--config");
const scaleFlag = process.argv.indexOf("--scale");
const SCALE = scaleFlag > 0 ? process.argv[scaleFlag + 1] : undefined;
const CONFIG =
  configFlag > 0
    ? (process.argv[configFlag + 1] ?? "")
    : join(ROOT, SCALE === "production" ? PRODUCTION_CONFIG : "wrangler.toml");

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

/** @param {string} name */
function createDatabase(name) {
  const created = wrangler(["d1", "create", name, "--config", CONFIG]);
  const id = created.ok ? parseD1DatabaseId(created.output) : null;
  if (id) return id;
  if (created.ok || !ALREADY_EXISTS.test(created.output)) fail(`could not create the D1 database ${name}`);
  const listed = wrangler(["d1", "list", "--json", "--config", CONFIG]);
  return findD1DatabaseId(listed.output, name) ?? fail(`D1 database ${name} exists but was not listed`);
}

/** @param {string[]} queues */
function createQueues(queues) {
  for (const queue of queues) {
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

if (SCALE !== undefined && SCALE !== "production") fail(`--scale takes "production", not "${SCALE}"`);
if (SCALE === "production") {
  const layout = plannedLayout(ROOT);
  writeFileSync(CONFIG, productionLayout(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), layout));
  console.log(`wrote ${CONFIG}: ${JSON.stringify(layout)}`);
}
const toml = readFileSync(CONFIG, "utf8");
/** @type {Record<string, string>} */
const d1DatabaseIds = {};
for (const { binding, name } of d1Databases(toml)) d1DatabaseIds[binding] = createDatabase(name);
createQueues(producerQueues(toml));
const kvNamespaceId = createKvNamespace();
writeFileSync(CONFIG, rewriteWranglerToml(toml, { d1DatabaseIds, kvNamespaceId }));
console.log(
  `\nwrote the database_id of ${Object.keys(d1DatabaseIds).join(", ")} and the DEDUP_KV id = "${kvNamespaceId}" into ${CONFIG}`,
);
console.log(
  SCALE === "production"
    ? `next:\n  npx wrangler secret put EDGECRON_ADMIN_TOKEN --config ${PRODUCTION_CONFIG}\n  npm run deploy:production`
    : "next:\n  npx wrangler secret put EDGECRON_ADMIN_TOKEN\n  npm run deploy",
);
