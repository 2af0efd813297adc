// Shared e2e plumbing: wrangler's dev server as a real process (own process group, SIGKILL-able)
// on a migrated local state, and a real local HTTP server as the job target that records every call.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inject } from "vitest";
import { applyAllD1Migrations } from "../../scripts/lib/d1-migrations.mjs";
import { migrationTarget, QUIET_ENV, ROOT } from "./migration-target";

export { ROOT };
export const ADMIN_TOKEN = "e2e-admin-token";
const DEV_SERVER = join(import.meta.dirname, "..", "..", "scripts", "dev-server.mjs");
const KEEP_ALIVE_PRELOAD = join(ROOT, "scripts", "lib", "loopback-keep-alive-preload.mjs");
/** wrangler's CLI itself (what the .bin link runs), started by node with its own flags. */
const WRANGLER_CLI = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/**
 * A port to start a server on, below Linux's ephemeral range (32768-60999). The kernel hands out
 * that range as the source port of every outgoing connection: a port found free there (listen on
 * 0) and closed again was taken by one of the thousands of connections a flood opens before
 * wrangler bound it ("Address already in use", seen in CI). Another lane may still pick the same
 * number: startScheduler tries again on a fresh port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free port between 20000 and 32000");
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Polls `probe` until it returns a value other than undefined/false, or throws at the deadline. */
const PROBE_PENDING = Symbol("probe pending");

async function beforeDeadline<T>(
  probe: () => Promise<T> | T,
  deadline: number,
): Promise<T | typeof PROBE_PENDING> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise<typeof PROBE_PENDING>((resolve) => {
    timer = setTimeout(() => resolve(PROBE_PENDING), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([Promise.resolve().then(probe), pending]);
  } finally {
    clearTimeout(timer);
  }
}

export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, intervalMs = 100, what = "condition" } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      // A probe that never answers (a request the server holds) still ends at the deadline, so
      // the caller fails with its own diagnostics instead of running into the test's timeout.
      const value = await beforeDeadline(probe, deadline);
      if (value === PROBE_PENDING) {
        lastError = new Error("the last probe was still unanswered at the deadline");
        break;
      }
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`,
  );
}

export interface SchedulerProcess {
  baseUrl: string;
  port: number;
  stateDir: string;
  /** The process group of wrangler and its workerd children (the pid of the process spawned). */
  processGroup: number;
  log: () => string;
  /** Graceful stop (SIGTERM to the process group). */
  stop: () => Promise<void>;
  /** SIGKILL the whole process group: wrangler and its workerd children. */
  kill: () => Promise<void>;
}

export interface StartOptions {
  /** Reuse a state directory to restart "the same server" after a kill. */
  stateDir?: string;
  port?: number;
  vars?: Record<string, string>;
  /**
   * `wrangler dev -c a -c b ...`: the first config is edgecron (default wrangler.toml), the
   * others run beside it in the same process, reachable through its bindings only.
   */
  configs?: string[];
  /**
   * "apply": run `wrangler d1 migrations apply` on the state directory before starting, as
   * `npm start` does. Otherwise a fresh state directory starts as a copy of the one the suite's
   * globalSetup migrated (test/e2e/migrated-state.ts; migrations applied here when there is none),
   * and a reused one (a restart) as it was left: it was migrated when it was first started.
   */
  migrate?: "apply";
}

/** Prepares a migrated state dir and starts wrangler's dev server on it; resolves when it answers. */
export async function startScheduler(options: StartOptions = {}): Promise<SchedulerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSchedulerOnce(options);
    } catch (error) {
      // Another process took the port between freePort and wrangler's bind: a fresh one.
      const portTaken = String(error).includes("Address already in use");
      if (!portTaken || options.port !== undefined || attempt >= 3) throw error;
    }
  }
}

async function startSchedulerOnce(options: StartOptions): Promise<SchedulerProcess> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "edgecron-e2e-"));
  const port = options.port ?? (await freePort());
  const envFile = join(stateDir, "dev.vars");
  writeFileSync(envFile, `EDGECRON_ADMIN_TOKEN=${ADMIN_TOKEN}\n`);
  await prepareState(join(stateDir, "state"), options);
  const [command, args] = await devServerCommand(options, { stateDir, port, envFile });
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: QUIET_ENV,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-(child.pid as number), signal);
    } catch {}
    await exited;
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`wrangler exited: ${output.slice(-2000)}`);
        const res = await fetch(`${baseUrl}/healthz`);
        return res.ok;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "wrangler dev to answer /healthz" },
    );
  } catch (error) {
    await signalGroup("SIGKILL");
    throw new Error(`${String(error)}\n${output.slice(-3000)}`);
  }
  return {
    baseUrl,
    port,
    stateDir,
    processGroup: child.pid as number,
    log: () => output,
    stop: () => signalGroup("SIGTERM"),
    kill: () => signalGroup("SIGKILL"),
  };
}

/**
 * The process to spawn. One config: scripts/dev-server.mjs (what `npm start` runs), wrangler's
 * dev server with its DevTools inspector off (see there why), with the test's own secrets file.
 * Several (`configs`): the `wrangler dev -c a -c b`
 * command itself, the only way to run them in one runtime, inspector on a free port.
 */
async function devServerCommand(
  options: StartOptions,
  { stateDir, port, envFile }: { stateDir: string; port: number; envFile: string },
): Promise<[string, string[]]> {
  // As `npm start` runs: wrangler dev passes a client's CF-Connecting-IP through as sent.
  const vars = { ALLOW_PRIVATE_TARGETS: "true", AUTH_CLIENT_ADDRESS: "none", ...options.vars };
  const common = [
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    join(stateDir, "state"),
    "--env-file",
    envFile,
    ...Object.entries(vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
  ];
  if (!options.configs?.length) return [process.execPath, [DEV_SERVER, ...common]];
  return [
    process.execPath,
    [
      // Its loopback keeps idle connections open, as scripts/dev-server.mjs's does (see there).
      "--import",
      pathToFileURL(KEEP_ALIVE_PRELOAD).href,
      WRANGLER_CLI,
      "dev",
      ...options.configs.flatMap((config) => ["-c", config]),
      ...common,
      // Every wrangler dev defaults its inspector to 9229: a free one lets runs go side by side.
      "--inspector-port",
      String(await freePort()),
      "--show-interactive-dev-session=false",
      "--test-scheduled",
    ],
  ];
}

/** Gives `persistDir` migrated D1 databases (see `StartOptions.migrate`). */
async function prepareState(persistDir: string, options: StartOptions): Promise<void> {
  const migratedStateDir = inject("migratedStateDir");
  if (options.migrate === "apply" || (!options.stateDir && !migratedStateDir)) {
    await applyAllD1Migrations(migrationTarget(persistDir));
  } else if (!options.stateDir && migratedStateDir) {
    cpSync(migratedStateDir, persistDir, { recursive: true });
  }
}

export function removeState(stateDir: string): void {
  rmSync(stateDir, { recursive: true, force: true });
}

export interface ReceivedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAtMs: number;
}

export interface TargetServer {
  url: string;
  calls: ReceivedCall[];
  /** Decide the response per call; default 200. */
  respond: (handler: (call: ReceivedCall) => { status: number; headers?: Record<string, string> }) => void;
  close: () => Promise<void>;
}

/** A local HTTP target recording every call it receives. */
export async function startTarget(): Promise<TargetServer> {
  const calls: ReceivedCall[] = [];
  let handler: (call: ReceivedCall) => { status: number; headers?: Record<string, string> } = () => ({
    status: 200,
  });
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const call: ReceivedCall = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        receivedAtMs: Date.now(),
      };
      calls.push(call);
      const { status, headers } = handler(call);
      res.writeHead(status, { "content-type": "text/plain", ...headers });
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    respond: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON client for the API with a bearer token. */
export function apiClient(baseUrl: string, token: string) {
  return async function call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const send = () =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    let res = await send();
    let text = await res.text();
    // wrangler's dev server restarted its runtime while the request was in flight (seen in CI
    // beside other files' servers): its answer says to send the request again, which it does
    // itself only for GET and HEAD.
    if (res.status === 503 && text.includes("restarted mid-request")) {
      res = await send();
      text = await res.text();
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** A tenant of its own with an API key: what most e2e tests start from. */
export interface TenantAccess {
  id: string;
  signingSecret: string;
  key: string;
  /** A client that sends the tenant's key. */
  api: ApiClient;
}

/**
 * Creates a tenant (`fields`: its name and any other create field) with the admin token, then an
 * API key for it. A refusal of either fails here, with the answer, not later as a puzzling 401.
 */
export async function createTenantWithKey(
  baseUrl: string,
  fields: { name: string } & Record<string, unknown>,
  adminToken: string = ADMIN_TOKEN,
): Promise<TenantAccess> {
  const admin = apiClient(baseUrl, adminToken);
  const tenant = await admin<{ id: string; signing_secret: string }>("POST", "/v1/tenants", fields);
  if (tenant.status !== 201)
    throw new Error(`create tenant ${fields.name}: ${tenant.status} ${JSON.stringify(tenant.body)}`);
  const key = await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.body.id });
  if (key.status !== 201)
    throw new Error(`create key of ${fields.name}: ${key.status} ${JSON.stringify(key.body)}`);
  return {
    id: tenant.body.id,
    signingSecret: tenant.body.signing_secret,
    key: key.body.key,
    api: apiClient(baseUrl, key.body.key),
  };
}
