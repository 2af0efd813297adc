#!/usr/bin/env node
// The local server behind `npm start` (run by scripts/dev-supervisor.mjs): wrangler's own dev
// server through its startWorker API, with one difference from the `wrangler dev` command that
// matters under load: no DevTools inspector.
//
// Why: `wrangler dev` always attaches an inspector proxy to the runtime and enables its Network
// domain. The runtime then emits about four DevTools events per outbound fetch, and the proxy
// forwards each one to wrangler's Node process over a new local HTTP request and also keeps it in
// a buffer that only an attached DevTools window drains. Under a flood of target calls (a few
// hundred per second) that exhausted file descriptors (EMFILE) and grew wrangler's memory without
// bound until it died. Logs are unaffected: they reach the terminal through the runtime's output.
//
// Usage: node scripts/dev-server.mjs --ip HOST --port PORT --persist-to DIR [--var NAME:VALUE ...]
//        [--env-file FILE ...]   (secrets; default the checkout's .dev.vars. The e2e harness passes
//        its own, so a developer's .dev.vars never reaches a test.)
import { join } from "node:path";
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";
import { keepIdleConnectionsOpen } from "./lib/loopback-keep-alive.mjs";

// Before wrangler creates its loopback server: a connection Node closes after 5 s idle could stop
// a local queue for good (see there).
keepIdleConnectionsOpen();

const root = join(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8787" },
    "persist-to": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
    "env-file": { type: "string", multiple: true, default: [] },
  },
});

const bindings = Object.fromEntries(
  values.var.map((pair) => {
    const at = pair.indexOf(":");
    return [pair.slice(0, at), { type: "plain_text", value: pair.slice(at + 1) }];
  }),
);

const worker = await unstable_startWorker({
  config: join(root, "wrangler.toml"),
  envFiles: values["env-file"].length > 0 ? values["env-file"] : [join(root, ".dev.vars")],
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
// wrangler prints "Ready on <url>" itself once the server answers (scripts/start.mjs waits for it).
await worker.ready;

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await worker.dispose().catch(() => {});
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);
