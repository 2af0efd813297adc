// The package as a user outside the repo gets it: `npm run package` (the CLI and the client, with
// the published manifest: no install scripts), the tarball installed into an empty project from npm's
// cache where it can, then the client imported by name under Node ESM, type-checked as a
// `moduleResolution: "nodenext"` project would, and the CLI run from its bin.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;

let projectDir = "";
let installOutput = "";

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs a command and returns its exit code and everything it printed, stdout and stderr together. */
function runAll(command: string, args: string[], cwd: string): { code: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  const workDir = mkdtempSync(join(tmpdir(), "edgecron-pack-"));
  run("npm", ["run", "package", "--", "--pack-destination", workDir], ROOT);
  const tarball = readdirSync(workDir).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm run package wrote no tarball");
  projectDir = join(workDir, "app");
  run("mkdir", ["-p", projectDir], workDir);
  writeFileSync(join(projectDir, "package.json"), '{"name":"app","private":true,"type":"module"}\n');
  // npm's own log level (warnings shown). Preferring the cache, not offline: after `npm ci` on a
  // fresh machine (CI's) the cache holds zod's tarball but not its registry entry, which npm needs
  // to resolve the package's range, so it is fetched once from the registry.
  const install = runAll(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", join(workDir, tarball)],
    projectDir,
  );
  installOutput = install.output;
  if (install.code !== 0) throw new Error(`npm install failed:\n${install.output}`);
}, 120_000);

afterAll(() => {
  if (projectDir) rmSync(join(projectDir, ".."), { recursive: true, force: true });
});

describe("the published package", () => {
  it("installs with no warning, no install script and only the dependency it uses", () => {
    expect(installOutput).not.toMatch(/warn/i);
    const installed = JSON.parse(
      readFileSync(join(projectDir, "node_modules", "edgecron", "package.json"), "utf8"),
    );
    expect(installed.scripts).toBeUndefined();
    expect(installed.dependencies).toEqual({ zod: expect.any(String) });
    expect(readdirSync(join(projectDir, "node_modules")).filter((name) => !name.startsWith("."))).toEqual([
      "edgecron",
      "zod",
    ]);
  });

  it("runs the CLI from its bin", () => {
    expect(run(join(projectDir, "node_modules", ".bin", "edgecron"), ["--version"], projectDir)).toBe(
      `edgecron ${VERSION}\n`,
    );
  });

  it("is what npm pack in the repository points to (the development manifest is not packed)", () => {
    const packed = runAll("npm", ["pack", "--dry-run"], ROOT);
    expect(packed.code).not.toBe(0);
    expect(packed.output).toContain("npm run package");
  });
});

describe("the client package (edgecron/client)", () => {
  it("imports under Node ESM and calls the API it is given", async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", path: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const { port } = server.address() as AddressInfo;
    writeFileSync(
      join(projectDir, "call.mjs"),
      `import { EdgecronClient, EdgecronNetworkError, verifySignature } from "edgecron/client";
const live = new EdgecronClient({ baseUrl: "http://127.0.0.1:${port}" });
const dead = new EdgecronClient({ baseUrl: "http://127.0.0.1:1", retries: 0 });
const error = await dead.health().catch((e) => e);
console.log(JSON.stringify({ health: await live.health(), dead: error instanceof EdgecronNetworkError, verify: typeof verifySignature }));
`,
    );
    try {
      // Asynchronously: the server answering it runs in this process.
      const { stdout } = await promisify(execFile)(process.execPath, ["call.mjs"], { cwd: projectDir });
      const output = JSON.parse(stdout);
      expect(output).toEqual({ health: { status: "ok", path: "/healthz" }, dead: true, verify: "function" });
    } finally {
      server.close();
    }
  });

  it("carries type declarations a nodenext project compiles against", () => {
    writeFileSync(
      join(projectDir, "typed.ts"),
      `import { EdgecronClient, type Job } from "edgecron/client";
const client = new EdgecronClient({ baseUrl: "https://edgecron.example.com" });
export const job: Promise<Job> = client.jobs.get("job_1");
// @ts-expect-error: an id is a string
client.jobs.get(1);
`,
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext"];
    expect(() =>
      run(
        process.execPath,
        [tsc, ...flags, "--target", "es2022", "--lib", "es2022,dom", "typed.ts"],
        projectDir,
      ),
    ).not.toThrow();
  });
});
