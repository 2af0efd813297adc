#!/usr/bin/env node
// Builds the typed client package (`edgecron/client`, see package.json `exports`): esbuild bundles
// src/client into one ES module for Node, Workers and browsers (it uses only fetch and Web Crypto),
// and tsc writes its type declarations (tsconfig.client.json). Runs from `npm install` (the
// `prepare` script), so a fresh clone carries it, and from `npm run package` (scripts/pack-package.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLIENT_DIR = join(ROOT, "dist-client");
export const CLIENT_BUNDLE = join(CLIENT_DIR, "index.js");

/** Bundles the client's code; written to a temporary file then renamed, as the CLI bundle is. */
async function buildClientCode() {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [join(ROOT, "src", "client", "index.ts")],
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild produced no output");
  mkdirSync(CLIENT_DIR, { recursive: true });
  const temporary = `${CLIENT_BUNDLE}.${process.pid}.tmp`;
  writeFileSync(temporary, output.contents);
  renameSync(temporary, CLIENT_BUNDLE);
}

/**
 * The client's sources import their neighbours without extensions (`from "<dir>/client"`, bundler
 * resolution); a project resolving as Node does (`moduleResolution: "nodenext"`) needs the `.js`.
 * @param {string} dir
 */
function addDeclarationExtensions(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) addDeclarationExtensions(path);
    if (!entry.name.endsWith(".d.ts")) continue;
    const text = readFileSync(path, "utf8").replace(
      /(from |import\()"(\.{1,2}\/[^"]+)"/g,
      (_, lead, specifier) => {
        const target = resolve(dir, specifier);
        const withExtension = existsSync(`${target}.d.ts`) ? `${specifier}.js` : `${specifier}/index.js`;
        return `${lead}"${withExtension}"`;
      },
    );
    writeFileSync(path, text);
  }
}

/** The declarations: the client's, and those of the schema modules its types are inferred from. */
function buildClientTypes() {
  const typesDir = join(CLIENT_DIR, "types");
  rmSync(typesDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.client.json")], { stdio: "inherit" });
  addDeclarationExtensions(typesDir);
}

export async function buildClient() {
  await buildClientCode();
  buildClientTypes();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildClient();
  console.log(`built ${CLIENT_DIR}`);
}
