#!/usr/bin/env node
// `npm start`: a local scheduler in one command. Creates .dev.vars with the dev admin token if it
// is missing, applies the D1 migrations locally, then runs wrangler's dev server without its
// DevTools inspector (scripts/dev-server.mjs: local D1, DOs, queues, KV) through
// scripts/dev-supervisor.mjs, which stops it and its workerd children with us.
//
// Environment: PORT (8787), HOST (127.0.0.1), EDGECRON_STATE_DIR (local state, .wrangler/state),
// EMULATE_CONNECTION_CAP ("true": Cloudflare's 6 outbound connections, emulated), DISPATCH_LANE,
// the OpenTelemetry settings (OTEL_EXPORTER_OTLP_ENDPOINT, ..._HEADERS, OTEL_SERVICE_NAME), and
// the target policy: EDGECRON_TARGET_POLICY (local, the default, or production) and
// EDGECRON_ALLOWED_TARGETS (host[:port] entries production's rules let through). Every line of
// .dev.vars reaches the Worker as well (scripts/lib/local-settings.mjs says why that needs us).
// `--targets` (npm run start:targets) adds the example Worker behind binding targets.
//
// It stops, leaving no process behind, on SIGINT, SIGTERM or SIGHUP (a closed terminal), sent to
// this process or to its whole process group; when npm above it dies (npm forwards only SIGINT and
// SIGTERM: we watch our parent); and when this process is SIGKILLed (the supervisor sees its stdin
// close: see dev-supervisor.mjs).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseEnv } from "node:util";
import { applyAllD1Migrations } from "./lib/d1-migrations.mjs";
import { localSettings, requiredSecrets, targetPolicyLine } from "./lib/local-settings.mjs";
import { TARGET_BINDINGS, writeLocalTargetConfigs } from "./lib/local-targets.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT ?? "8787");
const host = process.env.HOST ?? "127.0.0.1";
const stateDir = resolve(root, process.env.EDGECRON_STATE_DIR ?? join(".wrangler", "state"));
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const supervisor = join(root, "scripts", "dev-supervisor.mjs");
const devServer = join(root, "scripts", "dev-server.mjs");
const wranglerCli = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
// `npm run start:targets`: the same, with the example Worker behind binding targets beside it.
const withTargets = process.argv.includes("--targets");
// WRANGLER_DISABLE_EXPERIMENTAL_WARNING: wrangler.toml's [secrets] (it makes a deploy without the
// admin token fail) is marked experimental, and wrangler would say so on every start.
const quietEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_DISABLE_EXPERIMENTAL_WARNING: "1",
};
const ANCESTOR_POLL_MS = 250;

// A closed terminal makes writes fail (EIO/EPIPE); that must not stop us from cleaning up.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

/** Resolves with the port if `host:port` can be bound now, or rejects with the bind error. */
function probePort(portToProbe) {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(portToProbe, host, () => {
      const bound = server.address().port;
      server.close(() => resolvePort(bound));
    });
  });
}

// Checked before anything starts, so a taken port is one line, not a workerd stack trace.
try {
  await probePort(port);
} catch (error) {
  const why =
    error.code === "EADDRINUSE" ? "is already in use (another npm start?)" : `cannot be used (${error.code})`;
  console.error(
    `edgecron: port ${port} on ${host} ${why}; stop that process or pick another: PORT=${port + 1} npm start`,
  );
  process.exit(1);
}

const devVarsPath = join(root, ".dev.vars");
const DEV_TOKEN_LINE = "EDGECRON_ADMIN_TOKEN=dev-admin-token";
if (!existsSync(devVarsPath)) {
  writeFileSync(devVarsPath, `${DEV_TOKEN_LINE}\n`);
  console.log(`created .dev.vars with ${DEV_TOKEN_LINE}`);
} else if (parseEnv(readFileSync(devVarsPath, "utf8")).EDGECRON_ADMIN_TOKEN === undefined) {
  // A .dev.vars begun with another line (the OpenTelemetry recipe's `echo ... >> .dev.vars`).
  const text = readFileSync(devVarsPath, "utf8");
  writeFileSync(devVarsPath, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${DEV_TOKEN_LINE}\n`);
  console.log(`added ${DEV_TOKEN_LINE} to .dev.vars`);
}
const devVars = parseEnv(readFileSync(devVarsPath, "utf8"));
const token = devVars.EDGECRON_ADMIN_TOKEN?.trim();
let settings;
try {
  settings = localSettings({
    devVars,
    env: process.env,
    required: requiredSecrets(readFileSync(join(root, "wrangler.toml"), "utf8")),
  });
} catch (error) {
  console.error(`edgecron: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

try {
  await applyAllD1Migrations({
    wrangler,
    cwd: root,
    env: quietEnv,
    configPath: join(root, "wrangler.toml"),
    where: ["--local", "--persist-to", stateDir],
  });
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
console.log("D1 migrations applied (local): the control database and every job database");

const serverArgs = [
  "--ip",
  host,
  "--port",
  String(port),
  "--persist-to",
  stateDir,
  // .dev.vars, the OpenTelemetry settings and the target policy: local mode allows the local
  // targets (your own http://127.0.0.1 server) that production refuses.
  ...Object.entries(settings.vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  // wrangler dev passes a client's CF-Connecting-IP through as sent: no address is trusted here.
  "--var",
  "AUTH_CLIENT_ADDRESS:none",
];
// Opt in to Cloudflare's 6 outbound connections per invocation and per Durable Object, which the
// local runtime does not enforce (src/queue/connection-cap.ts).
if (process.env.EMULATE_CONNECTION_CAP === "true") serverArgs.push("--var", "EMULATE_CONNECTION_CAP:true");
// The dispatcher pool lane instead of the queues alone (src/queue/dispatch-lane.ts).
if (process.env.DISPATCH_LANE === "pool") serverArgs.push("--var", "DISPATCH_LANE:pool");
// The server is wrangler's dev server without its DevTools inspector: scripts/dev-server.mjs says
// why (under a flood of target calls the inspector exhausted file descriptors and memory). With
// --targets, the example Worker runs beside it, which only the `wrangler dev -c a -c b` command
// can do (its inspector on a free port, so it never clashes with another instance).
const devArgs = withTargets
  ? [
      // Its loopback keeps idle connections open, as scripts/dev-server.mjs's does (see there).
      "--import",
      pathToFileURL(join(root, "scripts", "lib", "loopback-keep-alive-preload.mjs")).href,
      wranglerCli,
      "dev",
      ...writeLocalTargetConfigs(root, { name: ".wrangler-local-targets.toml" }).flatMap((config) => [
        "-c",
        config,
      ]),
      ...serverArgs,
      "--var",
      `TARGET_BINDINGS:${TARGET_BINDINGS}`,
      "--inspector-port",
      String(await probePort(0)),
      "--show-interactive-dev-session=false",
      "--test-scheduled",
    ]
  : [devServer, ...serverArgs];
if (withTargets) console.log(`binding targets: ${TARGET_BINDINGS} (test/fixtures/targets-worker)`);
// Its own process group: a signal to ours (Ctrl-C, a group kill) must not kill it before it has
// stopped wrangler. Its stdin is the pipe whose EOF tells it we are gone.
const dev = spawn(process.execPath, [supervisor, process.execPath, ...devArgs], {
  cwd: root,
  env: quietEnv,
  detached: true,
  stdio: ["pipe", "pipe", "pipe"],
});

let announced = false;
const relay = (stream, out) =>
  stream.on("data", (chunk) => {
    out.write(chunk);
    // wrangler's own "[wrangler:info] Ready on <url>": the server answers from then on.
    if (!announced && /Ready on/.test(chunk.toString())) {
      announced = true;
      console.log(`\nedgecron is running at http://${host}:${port}`);
      console.log(`admin token: ${token}`);
      console.log(targetPolicyLine(settings));
      const otlp = settings.vars.OTEL_EXPORTER_OTLP_ENDPOINT;
      if (otlp) console.log(`OpenTelemetry: each run's spans and log lines go to ${otlp}`);
      for (const note of settings.notes) console.log(`note: ${note}`);
      console.log(`try: curl -s http://${host}:${port}/healthz\n`);
    }
  });
relay(dev.stdout, process.stdout);
relay(dev.stderr, process.stderr);

let stopRequested = false;
/** Closing the supervisor's stdin asks it to stop the tree; we exit when it has. */
const stop = () => {
  stopRequested = true;
  dev.stdin.end();
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);
dev.stdin.on("error", () => {});
dev.on("exit", (code) => process.exit(stopRequested ? 0 : (code ?? 1)));

/** The parent pid of a live `pid`, from /proc (Linux); undefined if it is gone, a zombie, or not Linux. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return state === "Z" ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

// npm alone receiving SIGHUP dies without telling its child: watch the chain above us. npm runs
// scripts under `sh -c`; dash swallows a SIGINT that npm forwards to it, so package.json `exec`s
// us and npm is our parent. Should a shell still sit between us (another runner, no exec), it
// outlives npm, so then its parent is watched too.
const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ash"]);
const parentPid = process.ppid;
const commandOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};
const grandparentPid = SHELLS.has(commandOf(parentPid)) ? parentOf(parentPid) : undefined;
const ancestorsAlive = () =>
  process.ppid === parentPid &&
  (grandparentPid === undefined ||
    (parentOf(parentPid) === grandparentPid && parentOf(grandparentPid) !== undefined));
setInterval(() => {
  if (!ancestorsAlive()) stop();
}, ANCESTOR_POLL_MS).unref();
