// Configs for `wrangler dev -c edgecron -c fixture`: edgecron with a service binding, a Workflow
// binding and a Queue producer that reach test/fixtures/targets-worker, run in the same process.
// Written at test time (and removed by the caller) so wrangler.toml itself declares no binding.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./harness";

/** The allow-list matching BINDINGS, passed with `--var`. */
export const TARGET_BINDINGS = "BILLING:service, REPORT_FLOW:workflow, USER_EVENTS:queue";

const FIXTURE_DIR = join(ROOT, "test", "fixtures", "targets-worker");
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
 * edgecron's wrangler.toml plus the bindings, beside it so its relative paths still resolve; the fixture
 * with RECORD_URL, where it posts a copy of everything it receives. Returns both paths.
 */
export function writeTargetConfigs(recordUrl: string): string[] {
  const main = join(ROOT, `.wrangler-e2e-targets-${process.pid}.toml`);
  writeFileSync(main, `${readFileSync(join(ROOT, "wrangler.toml"), "utf8")}\n${BINDINGS}`);
  const aux = join(FIXTURE_DIR, `.wrangler-e2e-${process.pid}.toml`);
  const fixture = readFileSync(join(FIXTURE_DIR, "wrangler.toml"), "utf8");
  writeFileSync(aux, `${fixture}\n[vars]\nRECORD_URL = "${recordUrl}"\n`);
  return [main, aux];
}
