// A tenant's limits and fair-share weight from the command line: `tenants limits` shows them,
// `tenants weight` sets the weight (admin token) and keeps the limits the tenant overrides.
import type { TenantLimits, TenantLimitsPut } from "../../client/index";
import { type Command, intFlag, printJson, stringFlag, UsageError } from "../context";
import { renderKeyValues } from "../render";

const LIMIT_NAMES = ["active_jobs", "creates_per_second", "triggers_per_second", "concurrent_calls"] as const;
const limitText = (value: number | null) => (value === null ? "no limit" : String(value));

function renderLimits(limits: TenantLimits): string {
  const source = (name: string) => (limits.overridden.includes(name) ? "" : " (default)");
  return renderKeyValues([
    ["tenant", limits.tenant_id],
    ...LIMIT_NAMES.map((name): [string, unknown] => [name, `${limitText(limits[name])}${source(name)}`]),
    ["weight", `${limits.weight}${source("weight")}`],
  ]);
}

function tenantIdOf(values: Parameters<typeof stringFlag>[0], positionals: string[]): string {
  const tenantId = stringFlag(values, "tenant-id") ?? positionals[0];
  if (!tenantId) throw new UsageError("--tenant-id is required");
  return tenantId;
}

const showLimits: Command = {
  path: ["tenants", "limits"],
  args: "--tenant-id <tenant-id>",
  summary: "show a tenant's limits and fair-share weight",
  options: { "tenant-id": { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    const limits = await ctx.client().tenants.limits(tenantIdOf(ctx.values, ctx.positionals));
    if (ctx.json) printJson(ctx.io, limits);
    else ctx.io.stdout.write(renderLimits(limits));
    return 0;
  },
};

const setWeight: Command = {
  path: ["tenants", "weight"],
  args: "--tenant-id <tenant-id> --weight <1-100>",
  summary: "set a tenant's weight in a full dispatch window's fair share (admin token; 1 is the default)",
  options: { "tenant-id": { type: "string" }, weight: { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    const tenantId = tenantIdOf(ctx.values, ctx.positionals);
    const weight = intFlag(ctx.values, "weight", { min: 1, max: 100 });
    if (weight === undefined) throw new UsageError("--weight is required");
    const tenants = ctx.client().tenants;
    const current = await tenants.limits(tenantId);
    // PUT replaces every override: send the ones the tenant has, so only the weight changes.
    const put: TenantLimitsPut = { weight };
    for (const name of LIMIT_NAMES) if (current.overridden.includes(name)) put[name] = current[name];
    const limits = await tenants.setLimits(tenantId, put);
    if (ctx.json) printJson(ctx.io, limits);
    else ctx.io.stdout.write(renderLimits(limits));
    return 0;
  },
};

export const tenantLimitCommands: Command[] = [showLimits, setWeight];
