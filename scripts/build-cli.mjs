#!/usr/bin/env node
// Bundles the CLI (src/cli + src/client, TypeScript) into dist-cli/edgecron.mjs for plain Node 20,
// which cannot run TypeScript. Runs from `npm install` (the `prepare` script) and again from
// bin/edgecron.mjs whenever a source file is newer than the bundle, so edits need no manual step.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_BUNDLE = join(ROOT, "dist-cli", "edgecron.mjs");
const ENTRY = join(ROOT, "src", "cli", "main.ts");
const SOURCE_DIRS = [join(ROOT, "src", "cli"), join(ROOT, "src", "client")];

/**
 * Newest modification time (ms) of the files the bundle is built from.
 * @param {string} dir
 * @returns {number}
 */
function newestSourceMs(dir) {
  // An installed package (`npm run package`) carries the bundle without the sources: nothing to rebuild.
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when the bundle is missing or older than a source file. */
export function isCliBundleStale() {
  let bundleMs;
  try {
    bundleMs = statSync(CLI_BUNDLE).mtimeMs;
  } catch {
    return true;
  }
  return SOURCE_DIRS.some((dir) => newestSourceMs(dir) > bundleMs);
}

/** Builds the bundle; written to a temporary file then renamed, so a concurrent run never reads half a file. */
export async function buildCli() {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    sourcemap: "inline",
    logLevel: "warning",
    // CommonJS dependencies (yaml) call require("process"): give the ESM bundle a require.
    banner: {
      js: 'import { createRequire as __edgecronRequire } from "node:module"; const require = __edgecronRequire(import.meta.url);',
    },
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild produced no output");
  mkdirSync(dirname(CLI_BUNDLE), { recursive: true });
  const temporary = `${CLI_BUNDLE}.${process.pid}.tmp`;
  writeFileSync(temporary, output.contents);
  renameSync(temporary, CLI_BUNDLE);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
  console.log(`built ${CLI_BUNDLE}`);
}
