import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            EDGECRON_ADMIN_TOKEN: "test-admin-token",
            // Test-only switches (fault injection, hooks) are inert unless this is set.
            EDGECRON_TEST_HOOKS: "1",
            ALLOW_PRIVATE_TARGETS: "true",
            // Tests drive maintenance passes explicitly.
            MAINTENANCE_INTERVAL_MS: "0",
          },
          // Each local queue hop waits for the batch timeout: 0 keeps tests fast.
          queueConsumers: {
            "edgecron-dispatch": {
              maxBatchSize: 100,
              maxBatchTimeout: 0,
              maxRetries: 3,
              deadLetterQueue: "edgecron-dead-letters",
            },
            "edgecron-dead-letters": { maxBatchSize: 100, maxBatchTimeout: 0 },
          },
        },
      }),
    ],
    test: {
      include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
      // Integration tests wait (with deadlines) on real queues, alarms and a real target.
      testTimeout: 30_000,
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/apply-migrations.ts", "./test/helpers/no-alarm-left.ts"],
      // cron-parser 5 is CommonJS (require("luxon")); the pool's CJS shim leaves luxon
      // undefined unless Vite pre-bundles it.
      deps: { optimizer: { ssr: { enabled: true, include: ["cron-parser"] } } },
    },
  };
});
