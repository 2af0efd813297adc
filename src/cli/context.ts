// What every command receives: parsed flags, the client factory and where to print.
import type { ParseArgsConfig } from "node:util";
import { EdgecronClient } from "../client/index";

export type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

/** A mistake in how the CLI was called: exit code 2 with the command's usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  /** package.json's version, for `edgecron --version` (bin/edgecron.mjs reads it). */
  version?: string;
}

export interface Context {
  values: FlagValues;
  positionals: string[];
  io: Io;
  json: boolean;
  /** Built on first use so `help` and usage errors need no token. */
  client: () => EdgecronClient;
}

export interface Command {
  /** e.g. ["jobs", "create"]. */
  path: string[];
  args: string;
  summary: string;
  /** Extra help lines under the usage. */
  details?: string[];
  options: OptionsConfig;
  /** Number of positional arguments after the command words: [min, max]. */
  positionals: [number, number];
  /** The exit code of a usage mistake (default 2; `plan` answers 2 for "changes", so 1). */
  usageExitCode?: number;
  run: (ctx: Context) => Promise<number>;
}

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: OptionsConfig = {
  url: { type: "string" },
  token: { type: "string" },
  tenant: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

export function makeClientFactory(values: FlagValues, env: Io["env"]): () => EdgecronClient {
  let client: EdgecronClient | undefined;
  return () => {
    if (client) return client;
    const token = stringFlag(values, "token") ?? env.EDGECRON_TOKEN;
    // `runs heartbeat` and `runs complete` authenticate with the run token instead.
    if (!token && stringFlag(values, "run-token") === undefined) {
      throw new UsageError(
        "no API token: pass --token <token> or set EDGECRON_TOKEN.\n" +
          "For a local `npm start`, the admin token is printed at startup (dev-admin-token):\n" +
          "  export EDGECRON_TOKEN=dev-admin-token",
      );
    }
    const baseUrl = stringFlag(values, "url") ?? env.EDGECRON_URL ?? DEFAULT_BASE_URL;
    if (!URL.canParse(baseUrl)) throw new UsageError(`--url/EDGECRON_URL is not a URL: ${baseUrl}`);
    client = new EdgecronClient({
      baseUrl,
      token,
      tenant: stringFlag(values, "tenant") ?? env.EDGECRON_TENANT,
    });
    return client;
  };
}

export function stringFlag(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * A filter flag: undefined when absent, a usage error when given empty. An empty filter would
 * select everything (the API refuses it too), so `--name ''` never lists or changes more than meant.
 */
export function filterFlag(values: FlagValues, name: string): string | undefined {
  const value = stringFlag(values, name);
  if (value !== undefined && value.trim() === "") {
    throw new UsageError(
      `--${name} must not be empty: an empty filter would select everything (leave the flag out)`,
    );
  }
  return value;
}

export function stringListFlag(values: FlagValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return typeof value === "string" ? [value] : [];
}

/** A positive integer flag, or undefined when absent; a usage error when malformed. */
export function intFlag(
  values: FlagValues,
  name: string,
  bounds: { min: number; max: number },
): number | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw new UsageError(`--${name} must be an integer from ${bounds.min} to ${bounds.max}, got ${raw}`);
  }
  return value;
}

export function printJson(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Array.fromAsync is Node 22+; this runs on Node 20. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
