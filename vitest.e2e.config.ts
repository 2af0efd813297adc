import { defineConfig } from "vitest/config";

// End-to-end suites: real `wrangler dev` processes and real local HTTP targets, in plain Node.
// Most files spend their time waiting on real clocks (instants, leases, restarts), so they run
// two at a time on the 2-core machine. The files that assert how late fires land under their
// own load run afterwards, one at a time, so no other suite's wrangler competes with them.
const ALONE = ["test/e2e/scheduling.e2e.ts", "test/e2e/slow-endpoints.e2e.ts", "test/e2e/operations.e2e.ts"];
const shared = { testTimeout: 120_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    // Migrates one state directory up front; each fresh `wrangler dev` starts from a copy.
    globalSetup: ["./test/e2e/migrated-state.ts"],
    projects: [
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/e2e/**/*.e2e.ts"],
          exclude: ALONE,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e-alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
