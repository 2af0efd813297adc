// The example Worker behind binding targets (test/fixtures/targets-worker) run beside edgecron in
// one `wrangler dev`: edgecron's wrangler.toml plus a service binding, a Workflow binding and a
// Queue producer that reach it. Used by `npm run start:targets` and by the e2e target tests; the
// combined config is written at run time, so wrangler.toml itself declares no binding.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The allow-list matching the bindings below (the TARGET_BINDINGS var). */
export const TARGET_BINDINGS = "BILLING:service, REPORT_FLOW:workflow, USER_EVENTS:queue";

const BINDINGS = `
[[services]]
binding = "BILLING"
service = "edgecron-targets"

[[workflows]]
binding = "REPORT_FLOW"
name = "report-flow"
class_name = "ReportFlow"
script_name = "edgecron-targets"

[[queues.producers]]
binding = "USER_EVENTS"
queue = "user-events"
`;

/**
 * Writes edgecron's config with the bindings at `<root>/<name>` (beside wrangler.toml, so its relative
 * paths still resolve) and, given a `recordUrl`, the example Worker's config with RECORD_URL (it posts
 * a copy of everything it receives there) beside its own. Returns the two paths for `wrangler dev -c`.
 * @param {string} root
 * @param {{ name: string, recordUrl?: string }} options
 * @returns {string[]}
 */
export function writeLocalTargetConfigs(root, { name, recordUrl }) {
  const main = join(root, name);
  writeFileSync(main, `${readFileSync(join(root, "wrangler.toml"), "utf8")}\n${BINDINGS}`);
  const fixtureDir = join(root, "test", "fixtures", "targets-worker");
  if (recordUrl === undefined) return [main, join(fixtureDir, "wrangler.toml")];
  const aux = join(fixtureDir, name);
  const fixture = readFileSync(join(fixtureDir, "wrangler.toml"), "utf8");
  writeFileSync(aux, `${fixture}\n[vars]\nRECORD_URL = "${recordUrl}"\n`);
  return [main, aux];
}
