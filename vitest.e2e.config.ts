import { defineConfig } from "vitest/config";

// End-to-end suites: real `wrangler dev` processes and real local HTTP targets, in plain Node.
// Files run one after another: each starts its own wrangler and the machine has 2 cores.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
