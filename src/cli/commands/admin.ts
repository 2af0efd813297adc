import type { ApiKeySummary, ShardTzdata, Tenant } from "../../client/index";
import { type Command, printJson, stringFlag, UsageError } from "../context";
import { renderKeyValues, renderTable } from "../render";

function renderTenant(tenant: Tenant): string {
  return renderKeyValues([
    ["id", tenant.id],
    ["name", tenant.name],
    ["alert webhook", tenant.alert_webhook_url],
    ["signing secret", tenant.signing_secret],
    ["next secret", tenant.signing_secret_next],
    ["created", tenant.created_at],
  ]);
}

const tenantsCreate: Command = {
  path: ["tenants", "create"],
  args: "--name <name> [--alert-webhook <url>]",
  summary: "create a tenant (admin token)",
  options: { name: { type: "string" }, "alert-webhook": { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    const name = stringFlag(ctx.values, "name") ?? ctx.positionals[0];
    if (!name) throw new UsageError("--name is required");
    const alertWebhook = stringFlag(ctx.values, "alert-webhook");
    const tenant = await ctx.client().tenants.create({
      name,
      ...(alertWebhook ? { alert_webhook_url: alertWebhook } : {}),
    });
    if (ctx.json) printJson(ctx.io, tenant);
    else ctx.io.stdout.write(renderTenant(tenant));
    return 0;
  },
};

const tenantsList: Command = {
  path: ["tenants", "list"],
  args: "",
  summary: "list tenants (admin token)",
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    const result = await ctx.client().tenants.list();
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        renderTable(
          [
            { header: "ID", value: (t: Tenant) => t.id, maxWidth: 64 },
            { header: "NAME", value: (t: Tenant) => t.name },
            { header: "CREATED", value: (t: Tenant) => t.created_at },
          ],
          result.data,
          "no tenants",
        ),
      );
    return 0;
  },
};

const keysCreate: Command = {
  path: ["keys", "create"],
  args: "--tenant-id <tenant-id> [--name <name>]",
  summary: "create an API key for a tenant (admin token); the key is shown once",
  options: { "tenant-id": { type: "string" }, name: { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    // The global --tenant means "act as this tenant"; for a new key it is also the natural spelling.
    const tenantId =
      stringFlag(ctx.values, "tenant-id") ?? ctx.positionals[0] ?? stringFlag(ctx.values, "tenant");
    if (!tenantId) throw new UsageError("--tenant-id is required");
    const name = stringFlag(ctx.values, "name");
    const key = await ctx.client().apiKeys.create({ tenant_id: tenantId, ...(name ? { name } : {}) });
    if (ctx.json) printJson(ctx.io, key);
    else {
      ctx.io.stdout.write(
        renderKeyValues([
          ["id", key.id],
          ["tenant", key.tenant_id],
          ["name", key.name],
          ["key", key.key],
        ]),
      );
      ctx.io.stderr.write("store the key now: it is not shown again\n");
    }
    return 0;
  },
};

const keysList: Command = {
  path: ["keys", "list"],
  args: "--tenant-id <tenant-id>",
  summary: "list a tenant's API keys, revoked ones too (admin token); shows prefixes only",
  options: { "tenant-id": { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    const tenantId =
      stringFlag(ctx.values, "tenant-id") ?? ctx.positionals[0] ?? stringFlag(ctx.values, "tenant");
    if (!tenantId) throw new UsageError("--tenant-id is required");
    const result = await ctx.client().apiKeys.list(tenantId);
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        renderTable(
          [
            { header: "ID", value: (k: ApiKeySummary) => k.id, maxWidth: 64 },
            { header: "PREFIX", value: (k: ApiKeySummary) => k.key_prefix },
            { header: "NAME", value: (k: ApiKeySummary) => k.name ?? "" },
            { header: "CREATED", value: (k: ApiKeySummary) => k.created_at },
            { header: "REVOKED", value: (k: ApiKeySummary) => k.revoked_at ?? "" },
          ],
          result.data,
          "no keys",
        ),
      );
    return 0;
  },
};

const keysRevoke: Command = {
  path: ["keys", "revoke"],
  args: "<key-id>",
  summary: "revoke an API key (admin token)",
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const result = await ctx.client().apiKeys.revoke(ctx.positionals[0] ?? "");
    if (ctx.json) printJson(ctx.io, result);
    else ctx.io.stdout.write(`revoked ${result.id} at ${result.revoked_at}\n`);
    return 0;
  },
};

const me: Command = {
  path: ["me"],
  args: "",
  summary: "show who the token belongs to",
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    const result = await ctx.client().me();
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        renderKeyValues([
          ["role", result.role],
          ["tenant", result.tenant_id],
        ]),
      );
    return 0;
  },
};

const tzdata: Command = {
  path: ["tzdata"],
  args: "",
  summary: "the tz database version of every shard's timers (admin token)",
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    const result = await ctx.client().tzdata();
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        `tz database ${result.tzdata}: ${result.up_to_date ? "every shard's timers use it" : "re-deriving"}\n` +
          renderTable(
            [
              { header: "SHARD", value: (s: ShardTzdata) => String(s.shard) },
              { header: "TIMERS", value: (s: ShardTzdata) => s.timers_version ?? "-" },
              { header: "REDERIVING TO", value: (s: ShardTzdata) => s.rederiving_to ?? "-" },
              { header: "JOBS", value: (s: ShardTzdata) => `${s.jobs_done}/${s.jobs_total}` },
            ],
            result.shards,
            "no shards",
          ),
      );
    return 0;
  },
};

export const adminCommands: Command[] = [
  tenantsCreate,
  tenantsList,
  keysCreate,
  keysList,
  keysRevoke,
  me,
  tzdata,
];
