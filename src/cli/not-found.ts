// A 404 names what was not found: `edgecron jobs get job_x` answers "No such job: job_x", whatever
// the server's detail says (an id that is not ours, or a shard's refusal, says only "No such job").
import type { Problem } from "../client/index";
import { type Command, type FlagValues, type Io, stringFlag } from "./context";

/** The usage placeholder of each kind of id, where it is not `<kind-id>`. */
const PLACEHOLDERS: Record<string, string> = {
  api_key: "key-id",
  bulk_operation: "operation-id",
};

export interface GivenArgs {
  values: FlagValues;
  positionals: string[];
}

/**
 * The id the command was given for what a `*_not_found` problem is about: the positional or flag
 * its usage names `<job-id>` (`jobs get <job-id>`, `runs list --job <job-id>`), and for a tenant
 * also the admin's `--tenant` / EDGECRON_TENANT. Undefined when the command took no such id.
 * @example idNotFound("job", jobsGet, { values: {}, positionals: ["job_x"] }, {}) === "job_x"
 */
export function idNotFound(
  kind: string,
  command: Command,
  given: GivenArgs,
  env: Io["env"],
): string | undefined {
  const placeholder = PLACEHOLDERS[kind] ?? `${kind.replaceAll("_", "-")}-id`;
  const usage = new RegExp(`(--[a-z-]+ )?<${placeholder}>`).exec(command.args);
  if (usage !== null) {
    const flag = usage[1]?.trim().slice(2);
    const id = flag === undefined ? given.positionals[0] : stringFlag(given.values, flag);
    if (id !== undefined) return id;
  }
  return kind === "tenant" ? (stringFlag(given.values, "tenant") ?? env.EDGECRON_TENANT) : undefined;
}

/** The problem with the id it is about in its detail, when the detail does not name it already. */
export function namingTheId(
  problem: Problem,
  command: Command,
  given: GivenArgs | undefined,
  env: Io["env"],
): Problem {
  const kind = problem.status === 404 ? /^(\w+)_not_found$/.exec(problem.code ?? "")?.[1] : undefined;
  if (kind === undefined || given === undefined) return problem;
  const id = idNotFound(kind, command, given, env);
  if (id === undefined || problem.detail?.includes(id)) return problem;
  const detail = problem.detail?.replace(/\.$/, "") ?? `No such ${kind.replaceAll("_", " ")}`;
  return { ...problem, detail: `${detail}: ${id}` };
}
