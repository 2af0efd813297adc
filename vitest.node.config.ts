import { defineConfig } from "vitest/config";

// Node-side unit tests: the client, the CLI and the deploy scripts, against local stub servers.
// No wrangler here; suites that need the real API live in test/e2e.
export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    testTimeout: 30_000,
    // vitest's default on 2 cores is one file at a time (cores - 1); these mostly wait on sockets.
    maxWorkers: 2,
  },
});
