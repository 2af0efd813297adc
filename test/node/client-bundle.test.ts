// The client must stay importable from browsers and Workers: no Node built-ins, and the zod
// schemas it takes its request types from must not leak into the bundle (type-only imports).
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the client bundle", () => {
  it("builds for the browser without Node built-ins and without zod", async () => {
    const result = await build({
      entryPoints: [join(ROOT, "src", "client", "index.ts")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.every((path) => path.startsWith("src/client/"))).toBe(true);
    const code = result.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/from ["']node:|require\(/);
    expect(code.length).toBeLessThan(60_000);
  });
});
