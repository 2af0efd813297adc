// Values vitest's globalSetups (Node) provide to the tests.
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the real local HTTP target (test/helpers/target-server.ts). */
    targetUrl: string;
    /**
     * e2e and browser suites: a local wrangler state directory whose D1 databases are migrated
     * (test/e2e/migrated-state.ts); fresh servers start from a copy.
     */
    migratedStateDir?: string;
  }
}

export {};
