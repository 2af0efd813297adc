import { defineConfig } from "vitest/config";

// Real-browser suite: Debian's Chromium driven by playwright-core against `wrangler dev` and a
// local HTTP target. One file at a time: each starts its own wrangler and a browser.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.browser.ts"],
    // Migrates one state directory up front; each fresh `wrangler dev` starts from a copy.
    globalSetup: ["./test/e2e/migrated-state.ts"],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
