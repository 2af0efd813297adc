// The `edgecron` CLI: `edgecron <command> [args] [--json] [--url <api>] [--token <token>]`.
// Exit codes: 0 ok, 1 the API refused or could not be reached, 2 usage.
import { parseArgs } from "node:util";
import { EdgecronNetworkError, EdgecronProblemError, type Problem } from "../client/index";
import { adminCommands } from "./commands/admin";
import { alertCommands } from "./commands/alerts";
import { controlCommands } from "./commands/control";
import { importCommand } from "./commands/import";
import { jobCommands } from "./commands/jobs";
import { previewCommand } from "./commands/preview";
import { runCallbackCommands } from "./commands/run-callbacks";
import { runCommands } from "./commands/runs";
import { scheduleFileCommands } from "./commands/schedule-files";
import { tenantLimitCommands } from "./commands/tenant-limits";
import { type Command, GLOBAL_OPTIONS, type Io, makeClientFactory, UsageError } from "./context";
import { type GivenArgs, namingTheId } from "./not-found";
import { renderProblem } from "./render";

export const COMMANDS: Command[] = [
  ...jobCommands,
  ...runCommands,
  ...runCallbackCommands,
  ...alertCommands,
  previewCommand,
  importCommand,
  ...adminCommands,
  ...controlCommands,
  ...tenantLimitCommands,
  ...scheduleFileCommands,
];

const GLOBAL_HELP = [
  "global flags:",
  "  --url <api>      API base URL (env EDGECRON_URL, default http://127.0.0.1:8787)",
  "  --token <token>  API key or admin token (env EDGECRON_TOKEN; `npm start` prints the dev token)",
  "  --tenant <id>    admin token only: act on this tenant (env EDGECRON_TENANT)",
  "  --json           machine-readable output",
];

/** The commands of one group (`edgecron jobs --help`). */
export function groupHelpText(group: Command[]): string {
  const width = Math.max(...group.map((c) => c.path.join(" ").length));
  return [
    `usage: edgecron ${group[0]?.path[0] ?? ""} <command> [args] [flags]`,
    "",
    "commands:",
    ...group.map((c) => `  ${c.path.join(" ").padEnd(width)}  ${c.summary}`),
    "",
    ...GLOBAL_HELP,
    "",
    `edgecron ${group[0]?.path[0] ?? ""} <command> --help for a command's flags`,
    "",
  ].join("\n");
}

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
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    io.stdout.write(`edgecron ${io.version ?? "unknown"}\n`);
    return 0;
  }
  const { command, rest, words } = resolveCommand(argv);
  if (!command) return helpOrUnknown(words, rest, io);
  let given: GivenArgs | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    given = { values, positionals };
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
    return reportError(error, io, command, given);
  }
}

/**
 * No command matched. `edgecron help [cmd]` and `--help` print to stdout and exit 0; a group's
 * `--help` (`jobs --help`) lists that group; nothing at all is a usage error (exit 2), as is an
 * unknown command.
 */
function helpOrUnknown(words: string[], rest: string[], io: Io): number {
  const group = COMMANDS.filter((c) => words.length > 0 && c.path[0] === words[0]);
  if (words[0] === "help") {
    const named = words.slice(1).join(" ");
    const helped = COMMANDS.find((c) => c.path.join(" ") === named);
    const helpedGroup = COMMANDS.filter((c) => c.path[0] === words[1]);
    io.stdout.write(helped ? helpText(helped) : helpedGroup.length ? groupHelpText(helpedGroup) : helpText());
    return 0;
  }
  const asksHelp = rest.includes("--help") || rest.includes("-h");
  if (words.length === 0) {
    (asksHelp ? io.stdout : io.stderr).write(helpText());
    return asksHelp ? 0 : 2;
  }
  if (group.length > 0 && words.length === 1) {
    (asksHelp ? io.stdout : io.stderr).write(groupHelpText(group));
    if (!asksHelp) io.stderr.write(`\nerror: \`${words[0]}\` needs a subcommand\n`);
    return asksHelp ? 0 : 2;
  }
  io.stderr.write(`error: unknown command: ${words.join(" ")}\n  see: edgecron --help\n`);
  return 2;
}

function reportError(error: unknown, io: Io, command: Command, given: GivenArgs | undefined): number {
  if (error instanceof UsageError) {
    io.stderr.write(`error: ${error.message}\nusage: ${usageLine(command)}\n`);
    return command.usageExitCode ?? 2;
  }
  if (isParseArgsError(error)) {
    io.stderr.write(`error: ${parseArgsMessage(error)}\n  see: edgecron ${command.path.join(" ")} --help\n`);
    return command.usageExitCode ?? 2;
  }
  if (error instanceof EdgecronProblemError) {
    io.stderr.write(renderProblem(cliWording(namingTheId(error.problem, command, given, io.env))));
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

/** Our one line for Node's parseArgs errors, which speak of positionals and `--` escapes. */
function parseArgsMessage(error: Error & { code?: string }): string {
  const flag = /'(-[^']*)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown flag ${flag}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(error.message)
        ? `${flag.split(" ")[0]} needs a value`
        : `${flag.split(" ")[0]} takes no value`;
    default:
      return error.message.split(". ")[0] ?? error.message;
  }
}

/** The API names its HTTP header; a CLI user sets the tenant with a flag or the environment. */
function cliWording(problem: Problem): Problem {
  if (problem.code !== "tenant_required") return problem;
  return {
    ...problem,
    detail:
      "The admin token acts on one tenant: pass --tenant <tenant-id> or set EDGECRON_TENANT (edgecron tenants list shows the ids)",
  };
}

function isParseArgsError(error: unknown): error is Error & { code?: string } {
  return isNodeError(error) && typeof error.code === "string" && error.code.startsWith("ERR_PARSE_ARGS");
}

function isNodeError(error: unknown): error is Error & { code?: string } {
  return error instanceof Error && "code" in error;
}

function defaultIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
