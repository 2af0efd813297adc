import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const TARGETS_WORKER = "edgecron-targets";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  const jobMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations-jobs"));
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            TEST_JOB_MIGRATIONS: jobMigrations,
            EDGECRON_ADMIN_TOKEN: "test-admin-token",
            // Test-only switches (fault injection, hooks) are inert unless this is set.
            EDGECRON_TEST_HOOKS: "1",
            ALLOW_PRIVATE_TARGETS: "true",
            // Tests drive maintenance passes explicitly.
            MAINTENANCE_INTERVAL_MS: "0",
            // The bindings below, usable as job targets; OTHER_TENANTS_ONLY is restricted to a
            // tenant no test has, and DEDUP_KV (ours) is ignored even though it is listed.
            TARGET_BINDINGS:
              "BILLING:service, REPORT_FLOW:workflow, USER_EVENTS:queue, OTHER_TENANTS_ONLY:service=ten_nobody, DEDUP_KV:queue",
          },
          // Binding targets reach the auxiliary worker below (test/fixtures/targets-worker).
          serviceBindings: { BILLING: TARGETS_WORKER, OTHER_TENANTS_ONLY: TARGETS_WORKER },
          workflows: {
            REPORT_FLOW: { name: "report-flow", className: "ReportFlow", scriptName: TARGETS_WORKER },
          },
          queueProducers: { USER_EVENTS: { queueName: "user-events" } },
          workers: [
            {
              name: TARGETS_WORKER,
              modules: true,
              scriptPath: "./test/fixtures/targets-worker/worker.js",
              compatibilityDate: "2026-04-20",
              kvNamespaces: { RECORDS: "targets-records" },
              workflows: { REPORT_FLOW: { name: "report-flow", className: "ReportFlow" } },
              queueConsumers: { "user-events": { maxBatchSize: 10, maxBatchTimeout: 0 } },
            },
          ],
          // Each local queue hop waits for the batch timeout: 0 keeps tests fast.
          queueConsumers: {
            "edgecron-dispatch": {
              maxBatchSize: 100,
              maxBatchTimeout: 0,
              maxRetries: 3,
              deadLetterQueue: "edgecron-dead-letters",
            },
            "edgecron-dispatch-1": {
              maxBatchSize: 100,
              maxBatchTimeout: 0,
              maxRetries: 3,
              deadLetterQueue: "edgecron-dead-letters",
            },
            "edgecron-dead-letters": { maxBatchSize: 100, maxBatchTimeout: 0 },
            "edgecron-side-deliveries": { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 30 },
          },
        },
      }),
    ],
    test: {
      projects: [
        // Unit files test pure code (no storage, no Worker): one workerd serves them all. A fresh
        // workerd per file (the default, which integration files need for isolated storage) cost
        // the 52 unit files 224 s instead of 57 s on the 2-core machine.
        {
          extends: true as const,
          test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false },
        },
        { extends: true as const, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
      ],
      // Integration tests wait (with deadlines) on real queues, alarms and a real target.
      testTimeout: 30_000,
      // vitest's default on 2 cores is one file at a time (cores - 1). Two: most files spend
      // their time waiting on real queues, alarms and clocks, and each has its own workerd.
      maxWorkers: 2,
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/apply-migrations.ts", "./test/helpers/no-alarm-left.ts"],
      // cron-parser 5 is CommonJS (require("luxon")); the pool's CJS shim leaves luxon
      // undefined unless Vite pre-bundles it.
      deps: { optimizer: { ssr: { enabled: true, include: ["cron-parser"] } } },
    },
  };
});
