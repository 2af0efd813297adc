// Values vitest's globalSetup (Node) provides to the workers-pool tests.
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the real local HTTP target (test/helpers/target-server.ts). */
    targetUrl: string;
  }
}

export {};
