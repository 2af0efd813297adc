// Configs for `wrangler dev -c edgecron -c fixture` (scripts/lib/local-targets.mjs, which
// `npm run start:targets` uses too), written at test time and removed by the caller.
import { writeLocalTargetConfigs } from "../../scripts/lib/local-targets.mjs";
import { ROOT } from "./harness";

export { TARGET_BINDINGS } from "../../scripts/lib/local-targets.mjs";

/** Both configs, the fixture's with RECORD_URL: where it posts a copy of everything it receives. */
export function writeTargetConfigs(recordUrl: string): string[] {
  return writeLocalTargetConfigs(ROOT, { name: `.wrangler-e2e-targets-${process.pid}.toml`, recordUrl });
}
