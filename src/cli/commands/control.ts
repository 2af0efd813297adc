// Stopping runaway work from the command line: suspend / unsuspend a tenant (admin token), and
// pause, resume or delete the jobs that match a filter (`jobs bulk`).
import type { JobBulk, Tenant } from "../../client/index";
import { type Command, filterFlag, printJson, stringFlag, UsageError } from "../context";
import { renderKeyValues } from "../render";

function suspensionCommand(verb: "suspend" | "unsuspend"): Command {
  return {
    path: ["tenants", verb],
    args: "--tenant-id <tenant-id>",
    summary:
      verb === "suspend"
        ? "suspend a tenant (admin token): no call of it starts, what would start work is refused"
        : "unsuspend a tenant (admin token): missed instants follow each job's misfire policy",
    options: { "tenant-id": { type: "string" } },
    positionals: [0, 1],
    async run(ctx) {
      const tenantId = stringFlag(ctx.values, "tenant-id") ?? ctx.positionals[0];
      if (!tenantId) throw new UsageError("--tenant-id is required");
      const tenants = ctx.client().tenants;
      const tenant: Tenant =
        verb === "suspend" ? await tenants.suspend(tenantId) : await tenants.unsuspend(tenantId);
      if (ctx.json) printJson(ctx.io, tenant);
      else
        ctx.io.stdout.write(
          renderKeyValues([
            ["id", tenant.id],
            ["name", tenant.name],
            ["suspended", tenant.suspended_at ?? "no"],
          ]),
        );
      return 0;
    },
  };
}

const ACTIONS = ["pause", "resume", "delete"] as const;

const jobsBulk: Command = {
  path: ["jobs", "bulk"],
  args: "<pause|resume|delete> [--name-prefix <p>] [--status <s>] [--created-before <time>] [--metadata <json>] [--all]",
  summary: "pause, resume or delete the jobs that match a filter (--all: every job)",
  options: {
    "name-prefix": { type: "string" },
    status: { type: "string" },
    "created-before": { type: "string" },
    metadata: { type: "string" },
    all: { type: "boolean" },
  },
  positionals: [1, 1],
  async run(ctx) {
    const action = ctx.positionals[0] as JobBulk["action"];
    if (!ACTIONS.includes(action)) throw new UsageError("the action is pause, resume or delete");
    const result = await ctx.client().jobs.bulk(bulkBody(ctx.values, action));
    if (ctx.json) printJson(ctx.io, result);
    else if ("id" in result)
      ctx.io.stdout.write(
        `matched ${result.matched}, ${action} going on (${result.done} done): edgecron jobs bulk-status ${result.id}\n`,
      );
    else ctx.io.stdout.write(`matched ${result.matched}, ${action} done for ${result.done}\n`);
    return 0;
  },
};

const jobsBulkStatus: Command = {
  path: ["jobs", "bulk-status"],
  args: "<operation-id>",
  summary: "the progress of a bulk call that went on in the background (over 5,000 jobs)",
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const operation = await ctx.client().jobs.bulkOperation(ctx.positionals[0] as string);
    if (ctx.json) printJson(ctx.io, operation);
    else
      ctx.io.stdout.write(
        renderKeyValues([
          ["id", operation.id],
          ["action", operation.action],
          ["state", operation.state],
          ["matched", operation.matched],
          ["done", operation.done],
          ["error", operation.error ?? "-"],
          ["updated", operation.updated_at],
        ]),
      );
    return 0;
  },
};

/** The request from the flags; the API checks the values (and refuses a filter naming nothing). */
function bulkBody(values: Parameters<typeof stringFlag>[0], action: JobBulk["action"]): JobBulk {
  const filter: NonNullable<JobBulk["filter"]> = {};
  const namePrefix = filterFlag(values, "name-prefix");
  const status = filterFlag(values, "status");
  const createdBefore = filterFlag(values, "created-before");
  const metadata = filterFlag(values, "metadata");
  if (namePrefix !== undefined) filter.name_prefix = namePrefix;
  if (status !== undefined) filter.status = status as NonNullable<typeof filter.status>;
  if (createdBefore !== undefined) filter.created_before = createdBefore;
  if (metadata !== undefined) filter.metadata = metadataFilter(metadata);
  return { action, filter, ...(values.all === true ? { all: true as const } : {}) };
}

/** `--metadata`: a JSON object of at least one key, none of them empty (`{}` would match every job). */
function metadataFilter(text: string): NonNullable<NonNullable<JobBulk["filter"]>["metadata"]> {
  const usage = '--metadata is a JSON object of at least one key, e.g. {"team": "billing"}';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(usage);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || Object.keys(value).length === 0)
    throw new UsageError(`${usage}: an empty filter would select every job`);
  const empty = Object.entries(value).find(([, entry]) => entry === "" || entry === null);
  if (empty !== undefined)
    throw new UsageError(`--metadata key ${JSON.stringify(empty[0])} must not be empty`);
  return value as Record<string, string>;
}

export const controlCommands: Command[] = [
  jobsBulk,
  jobsBulkStatus,
  suspensionCommand("suspend"),
  suspensionCommand("unsuspend"),
];
