#!/usr/bin/env node
// `npm run package`: the published package (the `edgecron` CLI and the `edgecron/client` export) as
// a tarball, `edgecron-<version>.tgz`, that installs with no install script and no warning.
//
// It builds the CLI and the client, copies what package.json's `files` lists (and the README) into
// a folder of its own with the published manifest (scripts/lib/package-manifest.mjs: no scripts),
// and packs that folder. `npm pack` in the repository itself is refused (the `prepack` script runs
// this with --refuse): it would pack the development manifest, whose `prepare` cannot run in an
// installed copy.
//
// Usage: node scripts/pack-package.mjs [--pack-destination <dir>]   (default: the current directory)
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildCli } from "./build-cli.mjs";
import { buildClient } from "./build-client.mjs";
import { publishedManifest } from "./lib/package-manifest.mjs";

const ROOT = join(import.meta.dirname, "..");

const { values } = parseArgs({
  options: { "pack-destination": { type: "string" }, refuse: { type: "boolean" } },
});
if (values.refuse) {
  console.error(
    "edgecron: this package.json is the development manifest (its prepare script builds from src/).\n" +
      "Pack the published package with: npm run package   (edgecron-<version>.tgz, no install scripts)",
  );
  process.exit(1);
}

const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
await buildCli();
await buildClient();

const stage = mkdtempSync(join(tmpdir(), "edgecron-package-"));
try {
  for (const entry of [...root.files, "README.md"]) {
    cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  }
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(publishedManifest(root), null, 2)}\n`);
  const destination = resolve(values["pack-destination"] ?? process.cwd());
  const packed = JSON.parse(
    execFileSync("npm", ["pack", stage, "--pack-destination", destination, "--json", "--loglevel=error"], {
      encoding: "utf8",
    }),
  );
  console.log(join(destination, packed[0].filename));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
