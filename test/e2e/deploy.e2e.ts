// `npm run deploy` cannot run here (no Cloudflare account); the closest honest check is that
// wrangler bundles the worker for deploy with the repository's config and with the config
// `npm run deploy:setup` would write.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PRODUCTION_CONFIG, plannedLayout, productionLayout } from "../../scripts/lib/production-layout.mjs";
import { rewriteWranglerToml } from "../../scripts/lib/wrangler-config.mjs";
import { ROOT } from "./harness";

const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
const QUIET_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

function dryRun(configPath: string) {
  const outdir = mkdtempSync(join(tmpdir(), "edgecron-dry-run-"));
  const result = spawnSync(WRANGLER, ["deploy", "--dry-run", "--outdir", outdir, "--config", configPath], {
    cwd: ROOT,
    env: QUIET_ENV,
    encoding: "utf8",
  });
  return { ...result, outdir };
}

describe("wrangler deploy --dry-run", () => {
  const cleanup: string[] = [];
  afterAll(() => {
    for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  });

  it("bundles the worker with the repository's wrangler.toml", () => {
    const result = dryRun(join(ROOT, "wrangler.toml"));
    cleanup.push(result.outdir);
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(existsSync(join(result.outdir, "index.js"))).toBe(true);
    expect(result.stdout).toMatch(/--dry-run: exiting now/);
  });

  it("bundles it with the ids deploy:setup writes", () => {
    // Beside the original so its relative paths (main, assets, migrations) still resolve.
    const configPath = join(ROOT, `.wrangler-deploy-test-${process.pid}.toml`);
    cleanup.push(configPath);
    const rewritten = rewriteWranglerToml(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), {
      d1DatabaseId: "3f0a7c52-9d1e-4b8a-a0c4-5e6f7a8b9c0d",
      kvNamespaceId: "0123456789abcdef0123456789abcdef",
    });
    writeFileSync(configPath, rewritten);
    const result = dryRun(configPath);
    cleanup.push(result.outdir);
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    // wrangler lists D1 by name, KV by id: the new id is what the deploy would bind.
    expect(result.stdout).toContain("env.DEDUP_KV (0123456789abcdef0123456789abcdef)");
  });

  it("bundles the production layout the capacity model plans, as committed, while local stays small", () => {
    const layout = plannedLayout(ROOT);
    const local = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
    const committed = readFileSync(join(ROOT, PRODUCTION_CONFIG), "utf8");
    // regenerate with `npm run layout:production` after a change to wrangler.toml or the model
    expect(committed).toBe(productionLayout(local, layout));
    expect(local).toMatch(/^SHARD_COUNT = "16"$/m);
    expect(committed).toMatch(new RegExp(`^SHARD_COUNT = "${layout.shards}"$`, "m"));
    expect(committed).toMatch(new RegExp(`^JOB_DATABASES = "${layout.jobDatabases}"$`, "m"));
    expect(committed).toMatch(new RegExp(`^DISPATCH_QUEUES = "${layout.dispatchQueues}"$`, "m"));
    expect(committed).toMatch(new RegExp(`^DISPATCH_RUNS_PER_MESSAGE = "${layout.runsPerMessage}"$`, "m"));
    const consumers = committed.match(/queue = "edgecron-dispatch(-\d+)?"\nmax_batch_size = (\d+)/g) ?? [];
    expect(consumers).toHaveLength(layout.dispatchQueues);
    for (const consumer of consumers)
      expect(consumer).toMatch(new RegExp(`max_batch_size = ${layout.maxBatchSize}$`));
    const result = dryRun(join(ROOT, PRODUCTION_CONFIG));
    cleanup.push(result.outdir);
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    for (let i = 0; i < layout.jobDatabases; i++)
      expect(result.stdout).toContain(`env.DB_JOBS_${i} (edgecron-jobs-${i})`);
    expect(result.stdout).toContain(
      `env.DISPATCH_QUEUE_${layout.dispatchQueues - 1} (edgecron-dispatch-${layout.dispatchQueues - 1})`,
    );
    expect(result.stdout).toContain(`SHARD_COUNT ("${layout.shards}")`);
  });
});
