#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
// `npx edgecron ...`: runs the bundled CLI, rebuilding it first when the TypeScript sources changed
// (or the bundle is missing because `npm install` ran with --ignore-scripts).
import { buildCli, CLI_BUNDLE, isCliBundleStale } from "../scripts/build-cli.mjs";

if (isCliBundleStale()) {
  try {
    await buildCli();
  } catch (error) {
    process.stderr.write(
      `edgecron: cannot build the CLI (run \`npm install\` first): ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
// `edgecron jobs list | head` closes our stdout early: that is the reader's choice, not an error.
process.stdout.on("error", (error) => {
  if (/** @type {NodeJS.ErrnoException} */ (error).code === "EPIPE") process.exit(0);
  throw error;
});
const { main } = await import(pathToFileURL(CLI_BUNDLE).href);
const packageJson = JSON.parse(
  readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"),
);
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  version: String(packageJson.version),
});
