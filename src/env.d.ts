// Bindings that exist only in some environments, so `wrangler types` cannot see them.
declare namespace Cloudflare {
  interface Env {
    /** "1" enables test-only hooks and fault switches; unset in every real deployment. */
    EDGECRON_TEST_HOOKS?: string;
    /**
     * Tests only (read only when EDGECRON_TEST_HOOKS is "1"): a simulated tz database change, JSON
     * `{"version": "...", "patches": [{"zone", "fromMs", "shiftMinutes"}]}` (see src/tzdata.ts).
     */
    EDGECRON_TEST_TZDATA?: string;
    /** Present only inside the vitest workers pool (test/apply-migrations.ts). */
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
  }
}
