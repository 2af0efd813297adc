#!/usr/bin/env node
// The e2e harness's local server: wrangler's own dev server (the one `wrangler dev` runs) through
// its startWorker API, with the DevTools inspector off, as scripts/dev-server.mjs runs it behind
// `npm start`. With the inspector on, the runtime reports every outbound fetch to wrangler's Node
// process as DevTools events over local HTTP; the suites make thousands of target calls, and that
// traffic competes for the same two cores as the scheduler under test.
// Unlike scripts/dev-server.mjs, the secrets come from --env-file (not the checkout's .dev.vars),
// so a developer's own .dev.vars never leaks into a test.
//
// Usage: node test/e2e/dev-server.mjs --ip HOST --port PORT --persist-to DIR --env-file FILE
//        [--var NAME:VALUE ...]
import { join } from "node:path";
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";

const root = join(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8787" },
    "persist-to": { type: "string" },
    "env-file": { type: "string", multiple: true, default: [] },
    var: { type: "string", multiple: true, default: [] },
  },
});

const bindings = Object.fromEntries(
  values.var.map((pair) => {
    const at = pair.indexOf(":");
    return [pair.slice(0, at), { type: /** @type {const} */ ("plain_text"), value: pair.slice(at + 1) }];
  }),
);

const worker = await unstable_startWorker({
  config: join(root, "wrangler.toml"),
  envFiles: values["env-file"],
  bindings,
  dev: {
    server: { hostname: values.ip, port: Number(values.port) },
    inspector: false,
    persist: values["persist-to"],
    testScheduled: true,
    watch: false,
    liveReload: false,
  },
});
await worker.ready;
console.log(`Ready on ${(await worker.url).origin}`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await worker.dispose().catch(() => {});
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);
