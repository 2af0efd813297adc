// Stopping a runaway tenant from the command line: suspend / unsuspend a tenant (admin token).
import type { Tenant } from "../../client/index";
import { type Command, printJson, stringFlag, UsageError } from "../context";
import { renderKeyValues } from "../render";

function suspensionCommand(verb: "suspend" | "unsuspend"): Command {
  return {
    path: ["tenants", verb],
    args: "--tenant-id <tenant-id>",
    summary:
      verb === "suspend"
        ? "suspend a tenant (admin token): no call of it starts, its creates are refused"
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

export const controlCommands: Command[] = [suspensionCommand("suspend"), suspensionCommand("unsuspend")];
