// The client as a user outside the repo gets it: `npm pack` (which runs `prepare`, building
// dist-client), the tarball installed into an empty project from npm's cache, then imported by name
// under Node ESM and type-checked as a `moduleResolution: "nodenext"` project would.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];

let projectDir = "";

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

beforeAll(() => {
  const workDir = mkdtempSync(join(tmpdir(), "edgecron-pack-"));
  run("npm", ["pack", "--pack-destination", workDir, ...NPM_QUIET], ROOT);
  const tarball = readdirSync(workDir).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");
  projectDir = join(workDir, "app");
  run("mkdir", ["-p", projectDir], workDir);
  writeFileSync(join(projectDir, "package.json"), '{"name":"app","private":true,"type":"module"}\n');
  run("npm", ["install", "--prefer-offline", ...NPM_QUIET, join(workDir, tarball)], projectDir);
}, 120_000);

afterAll(() => {
  if (projectDir) rmSync(join(projectDir, ".."), { recursive: true, force: true });
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
