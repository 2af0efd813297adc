#!/usr/bin/env node
// `npm start`: a local scheduler in one command. Creates .dev.vars with the dev admin token if it
// is missing, applies the D1 migrations locally, then runs `wrangler dev` (local D1, DOs, queues,
// KV) in its own process group so Ctrl-C stops wrangler and its workerd children together.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = process.env.PORT ?? "8787";
const host = process.env.HOST ?? "127.0.0.1";
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const quietEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const devVarsPath = join(root, ".dev.vars");
if (!existsSync(devVarsPath)) {
  writeFileSync(devVarsPath, "EDGECRON_ADMIN_TOKEN=dev-admin-token\n");
  console.log("created .dev.vars with EDGECRON_ADMIN_TOKEN=dev-admin-token");
}
const token = /^EDGECRON_ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVarsPath, "utf8"))?.[1]?.trim();

const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local"], {
  cwd: root,
  env: quietEnv,
  encoding: "utf8",
});
if (migrate.status !== 0) {
  process.stderr.write(migrate.stdout + migrate.stderr);
  process.exit(migrate.status ?? 1);
}
console.log("D1 migrations applied (local)");

const dev = spawn(
  wrangler,
  [
    "dev",
    "--ip",
    host,
    "--port",
    port,
    "--test-scheduled",
    "--show-interactive-dev-session=false",
    // Local targets (your own http://127.0.0.1 server) are refused in production; allow them here.
    "--var",
    "ALLOW_PRIVATE_TARGETS:true",
  ],
  { cwd: root, env: quietEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] },
);

let announced = false;
const relay = (stream, out) =>
  stream.on("data", (chunk) => {
    out.write(chunk);
    if (!announced && /Ready on/.test(chunk.toString())) {
      announced = true;
      console.log(`\nedgecron is running at http://${host}:${port}`);
      console.log(`admin token: ${token}`);
      console.log(`try: curl -s http://${host}:${port}/healthz\n`);
    }
  });
relay(dev.stdout, process.stdout);
relay(dev.stderr, process.stderr);

const stop = () => {
  try {
    process.kill(-dev.pid, "SIGTERM");
  } catch {}
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code) => process.exit(code ?? 0));
