// How the e2e suites run `wrangler d1 migrations apply` against a local state directory: the
// one place the harness and the suites' globalSetup agree on it.
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");
export const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
export const QUIET_ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

/** The options for `applyAllD1Migrations` that migrate the local databases under `persistDir`. */
export function migrationTarget(persistDir: string) {
  return {
    wrangler: WRANGLER,
    cwd: ROOT,
    env: QUIET_ENV,
    configPath: join(ROOT, "wrangler.toml"),
    where: ["--local", "--persist-to", persistDir],
  };
}
