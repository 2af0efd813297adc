// The `edgecron` CLI: `edgecron <command> [args] [--json] [--url <api>] [--token <token>]`.
// Exit codes: 0 ok, 1 the API refused or could not be reached, 2 usage.
import { parseArgs } from "node:util";
import { EdgecronNetworkError, EdgecronProblemError } from "../client/index";
import { adminCommands } from "./commands/admin";
import { importCommand } from "./commands/import";
import { jobCommands } from "./commands/jobs";
import { previewCommand } from "./commands/preview";
import { runCommands } from "./commands/runs";
import { type Command, GLOBAL_OPTIONS, type Io, makeClientFactory, UsageError } from "./context";
import { renderProblem } from "./render";

export const COMMANDS: Command[] = [
  ...jobCommands,
  ...runCommands,
  previewCommand,
  importCommand,
  ...adminCommands,
];

const GLOBAL_HELP = [
  "global flags:",
  "  --url <api>      API base URL (env EDGECRON_URL, default http://127.0.0.1:8787)",
  "  --token <token>  API key or admin token (env EDGECRON_TOKEN; `npm start` prints the dev token)",
  "  --tenant <id>    admin token only: act on this tenant (env EDGECRON_TENANT)",
  "  --json           machine-readable output",
];

function usageLine(command: Command): string {
  return `edgecron ${command.path.join(" ")}${command.args ? ` ${command.args}` : ""}`;
}

export function helpText(command?: Command): string {
  if (command) {
    return [
      `usage: ${usageLine(command)}`,
      "",
      command.summary,
      ...(command.details ?? []).map((l) => `  ${l}`),
      "",
      ...GLOBAL_HELP,
      "",
    ].join("\n");
  }
  const width = Math.max(...COMMANDS.map((c) => c.path.join(" ").length));
  const lines = COMMANDS.map((c) => `  ${c.path.join(" ").padEnd(width)}  ${c.summary}`);
  return [
    "usage: edgecron <command> [args] [flags]",
    "",
    "commands:",
    ...lines,
    "",
    ...GLOBAL_HELP,
    "",
    "edgecron <command> --help for a command's flags",
    "",
  ].join("\n");
}

/** Finds the command named by the leading words of argv; returns it and the remaining args. */
export function resolveCommand(argv: string[]): {
  command: Command | undefined;
  rest: string[];
  words: string[];
} {
  const words: string[] = [];
  const rest: string[] = [];
  let command: Command | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!command && !arg.startsWith("-")) {
      words.push(arg);
      command = COMMANDS.find((c) => c.path.join(" ") === words.join(" "));
      if (!command && !COMMANDS.some((c) => c.path.join(" ").startsWith(`${words.join(" ")} `)))
        return { command, rest, words };
      continue;
    }
    rest.push(arg);
    // A global flag's value before the command (`--url X jobs list`) is not a command word.
    if (!command && ["--url", "--token", "--tenant"].includes(arg)) rest.push(argv[++i] ?? "");
  }
  return { command, rest, words };
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  const { command, rest, words } = resolveCommand(argv);
  if (!command) {
    const asked = words.length === 0 || words[0] === "help";
    const helped = asked ? COMMANDS.find((c) => c.path.join(" ") === words.slice(1).join(" ")) : undefined;
    (asked ? io.stdout : io.stderr).write(helpText(helped));
    if (!asked) io.stderr.write(`\nunknown command: ${words.join(" ")}\n`);
    return asked || rest.includes("--help") ? 0 : 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(helpText(command));
      return 0;
    }
    const [min, max] = command.positionals;
    if (positionals.length < min || positionals.length > max) {
      throw new UsageError(
        max === 0 ? `unexpected argument: ${positionals[0]}` : `expected ${command.args.split(" [")[0]}`,
      );
    }
    const client = makeClientFactory(values, io.env);
    return await command.run({ values, positionals, io, json: values.json === true, client });
  } catch (error) {
    return reportError(error, io, command);
  }
}

function reportError(error: unknown, io: Io, command: Command): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    io.stderr.write(`error: ${(error as Error).message}\nusage: ${usageLine(command)}\n`);
    return 2;
  }
  if (error instanceof EdgecronProblemError) {
    io.stderr.write(renderProblem(error.problem));
    return 1;
  }
  if (error instanceof EdgecronNetworkError) {
    io.stderr.write(`error: ${error.message}\n  is the API running? set --url or EDGECRON_URL\n`);
    return 1;
  }
  if (isNodeError(error) && error.code === "ENOENT") {
    io.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  io.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}

function isParseArgsError(error: unknown): boolean {
  return isNodeError(error) && typeof error.code === "string" && error.code.startsWith("ERR_PARSE_ARGS");
}

function isNodeError(error: unknown): error is Error & { code?: string } {
  return error instanceof Error && "code" in error;
}

function defaultIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
