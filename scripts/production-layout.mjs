#!/usr/bin/env node
// `npm run layout:production [-- <npm run simulate flags>]`: writes wrangler.production.toml, the
// production layout the capacity model plans (scripts/lib/production-layout.mjs), without
// creating anything on Cloudflare (`npm run deploy:setup -- --scale production` does both).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PRODUCTION_CONFIG, plannedLayout, productionLayout } from "./lib/production-layout.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const layout = plannedLayout(ROOT, process.argv.slice(2));
writeFileSync(
  join(ROOT, PRODUCTION_CONFIG),
  productionLayout(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), layout),
);
console.log(`wrote ${PRODUCTION_CONFIG}: ${JSON.stringify(layout)}`);
