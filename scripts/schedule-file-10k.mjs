#!/usr/bin/env node
// Times `edgecron apply` of a 10,000-job schedule file against a running scheduler, then its
// re-apply, which must change nothing (docs/SCHEDULES-AS-CODE.md). Not part of the suite.
//
//   npm start                      # in another terminal (or any edgecron: set EDGECRON_URL)
//   node scripts/schedule-file-10k.mjs [--jobs 10000]
//
// Environment: EDGECRON_URL (http://127.0.0.1:8787), EDGECRON_ADMIN_TOKEN (dev-admin-token): a
// fresh tenant and key are made for the run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { jobs: { type: "string", default: "10000" } } });
const jobCount = Number(values.jobs);
const baseUrl = process.env.EDGECRON_URL ?? "http://127.0.0.1:8787";
const adminToken = process.env.EDGECRON_ADMIN_TOKEN ?? "dev-admin-token";

async function admin(path, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function fileOf(count) {
  const lines = ["managed_by: schedules-10k.yaml", "calendars:", "  - name: weekends", "    timezone: UTC"];
  lines.push("    rules: [{ type: weekly, days: [sat, sun] }]", "jobs:");
  for (let index = 0; index < count; index++) {
    const name = `job-${String(index).padStart(5, "0")}`;
    lines.push(`  - name: ${name}`);
    lines.push(`    schedule: { type: cron, expr: "${index % 60} ${index % 24} * * *", timezone: UTC }`);
    if (index % 10 === 0) lines.push("    calendars: [weekends]");
    lines.push(`    target: { url: "https://example.com/hooks/${name}", method: POST }`);
    lines.push(`    metadata: { index: ${index} }`);
  }
  return `${lines.join("\n")}\n`;
}

function apply(file, token) {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(root, "bin", "edgecron.mjs"), "apply", "-f", file, "--yes", "--json"],
    {
      env: { ...process.env, EDGECRON_URL: baseUrl, EDGECRON_TOKEN: token },
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`apply exited ${result.status}: ${result.stderr.slice(-2000)}`);
  return { seconds, summary: JSON.parse(result.stdout).summary };
}

const tenant = await admin("/v1/tenants", { name: `sac-10k-${Date.now()}` });
const key = await admin("/v1/api-keys", { tenant_id: tenant.id });
const dir = mkdtempSync(join(tmpdir(), "edgecron-10k-"));
const file = join(dir, "schedules-10k.yaml");
writeFileSync(file, fileOf(jobCount));
console.log(`${jobCount} jobs, tenant ${tenant.id}, ${file}`);
const first = apply(file, key.key);
console.log(`apply:    ${first.seconds.toFixed(1)} s  ${JSON.stringify(first.summary.jobs)}`);
const second = apply(file, key.key);
console.log(`re-apply: ${second.seconds.toFixed(1)} s  ${JSON.stringify(second.summary.jobs)}`);
const { create, update, adopt, delete: deleted, unchanged } = second.summary.jobs;
if (create + update + adopt + deleted !== 0 || unchanged !== jobCount) {
  console.error("the re-apply was not a no-op");
  process.exit(1);
}
console.log("the re-apply changed nothing");
