#!/usr/bin/env node
// `npx edgecron ...`: runs the bundled CLI, rebuilding it first when the TypeScript sources changed
// (or the bundle is missing because `npm install` ran with --ignore-scripts).
import { buildCli, CLI_BUNDLE, isCliBundleStale } from "../scripts/build-cli.mjs";
import { pathToFileURL } from "node:url";

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
const { main } = await import(pathToFileURL(CLI_BUNDLE).href);
process.exitCode = await main(process.argv.slice(2));
