// Targets that are Cloudflare bindings (service, Workflow, Queue): their job-body schemas, the
// deployment's allow-list of bindings usable as targets, and the deterministic Workflow instance
// id. Pure: the Worker checks the live bindings (src/delivery/binding-targets.ts).
import { z } from "zod";

export const BINDING_TARGET_KINDS = ["service", "workflow", "queue"] as const;
export type BindingTargetKind = (typeof BINDING_TARGET_KINDS)[number];

/** A binding name as wrangler accepts it: a JavaScript identifier (we ask for upper snake case). */
const BINDING_NAME = /^[A-Z][A-Z0-9_]{0,62}$/;
/**
 * edgecron's own bindings: never a target, even if an allow-list names one by mistake (a tenant
 * naming DB or DISPATCH_QUEUE would reach our storage or our dispatch path).
 */
export const INTERNAL_BINDINGS: ReadonlySet<string> = new Set([
  "DB",
  "DEDUP_KV",
  "SHARD_SCHEDULER",
  "MAINTENANCE",
  "DISPATCH_QUEUE",
  "DISPATCH_QUEUE_1",
  "DEAD_LETTER_QUEUE",
  "DB_JOBS_0",
  "DB_JOBS_1",
  "ANALYTICS",
  "ASSETS",
]);

/** The numbered families too: every job database (DB_JOBS_n) and dispatch queue (DISPATCH_QUEUE_n). */
export function isInternalBinding(name: string): boolean {
  return INTERNAL_BINDINGS.has(name) || /^(DB_JOBS|DISPATCH_QUEUE)_\d+$/.test(name);
}

/** Whether `name` is shaped like a binding name we accept (not whether it is allowed). */
export function isBindingName(name: string): boolean {
  return BINDING_NAME.test(name);
}

const bindingName = z.string().regex(BINDING_NAME, {
  message: "must be a binding name in upper snake case, such as BILLING",
});

/** Path and query on the bound Worker; the host is a name no public network resolves. */
const servicePath = z
  .string()
  .max(2048)
  .regex(/^\/[^\s#]*$/, { message: "must start with / and hold no spaces or #" })
  .default("/");

/**
 * The shapes below take `headers` and `body` from the HTTP target's schema (passed in), so the
 * header rules and the body cap stay defined once, in job-spec.ts.
 */
export function bindingTargetSchemas<M extends z.ZodType, H extends z.ZodType, B extends z.ZodType>(fields: {
  method: M;
  headers: H;
  body: B;
}) {
  return [
    z.strictObject({
      type: z.literal("service"),
      binding: bindingName,
      path: servicePath,
      method: fields.method,
      headers: fields.headers,
      body: fields.body,
    }),
    z.strictObject({ type: z.literal("workflow"), binding: bindingName, body: fields.body }),
    z.strictObject({ type: z.literal("queue"), binding: bindingName, body: fields.body }),
  ] as const;
}

/** One allow-list entry: the binding's kind and, if restricted, the tenants that may use it. */
export interface AllowedBinding {
  kind: BindingTargetKind;
  /** Null: every tenant of the deployment. */
  tenants: ReadonlySet<string> | null;
}

/**
 * Parses `TARGET_BINDINGS`: comma-separated `NAME:kind` entries, each optionally restricted to
 * some tenants with `=ten_a|ten_b`. Malformed entries and edgecron's own bindings are ignored
 * (and reported), so a typo closes a binding rather than opening one.
 *
 * @example parseTargetBindings("BILLING:service, REPORTS:workflow=ten_A|ten_B")
 * // { allowed: Map { BILLING => {kind: "service", tenants: null}, REPORTS => {...} }, ignored: [] }
 */
export function parseTargetBindings(value: string | undefined): {
  allowed: Map<string, AllowedBinding>;
  ignored: string[];
} {
  const allowed = new Map<string, AllowedBinding>();
  const ignored: string[] = [];
  for (const raw of (value ?? "").split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const match = /^([A-Z][A-Z0-9_]*):(service|workflow|queue)(?:=([^=]+))?$/.exec(entry);
    const name = match?.[1];
    if (match === null || name === undefined || isInternalBinding(name) || !BINDING_NAME.test(name)) {
      ignored.push(entry);
      continue;
    }
    const tenants = match[3]?.split("|").map((tenant) => tenant.trim());
    allowed.set(name, {
      kind: match[2] as BindingTargetKind,
      tenants: tenants === undefined ? null : new Set(tenants.filter((tenant) => tenant !== "")),
    });
  }
  return { allowed, ignored };
}

/**
 * Why a tenant may not name this binding as a target of this kind, or null if it may. The
 * message never lists the other bindings: they are the deployment's, not the tenant's.
 */
export function bindingTargetProblem(
  allowed: ReadonlyMap<string, AllowedBinding>,
  target: { type: BindingTargetKind; binding: string },
  tenantId: string,
): string | null {
  const entry = allowed.get(target.binding);
  if (entry === undefined || (entry.tenants !== null && !entry.tenants.has(tenantId))) {
    return `is not a binding this deployment allows as a target (TARGET_BINDINGS in wrangler.toml)`;
  }
  if (entry.kind !== target.type) {
    return `is a ${entry.kind} binding, not a ${target.type} binding`;
  }
  return null;
}

/**
 * The URL a service-binding call carries (and its signature binds): the bound Worker sees the
 * job's path under a name in the reserved `.invalid` domain (RFC 6761), which no network resolves.
 *
 * @example serviceTargetUrl({ binding: "BILLING", path: "/hook?x=1" }) // "https://billing.invalid/hook?x=1"
 */
export function serviceTargetUrl(target: { binding: string; path: string }): string {
  return `https://${target.binding.toLowerCase().replace(/_/g, "-")}.invalid${target.path}`;
}

/** Cloudflare Workflows' instance id rules (at most 100 characters of this alphabet). */
export const WORKFLOW_INSTANCE_ID = /^[a-zA-Z0-9_][a-zA-Z0-9_-]{0,99}$/;

/**
 * The Workflow instance id of a run: its idempotency key with every character Workflows refuses
 * turned into `-`, so every attempt and every redelivery of one instant names the same instance.
 * Our keys (`job_…:2026-01-01T00:00:00.000Z`, 57 characters) never need more; a longer key would
 * be cut, which is still deterministic, and ids only collide if two keys agree on their first
 * 100 characters.
 *
 * @example workflowInstanceId("job_01:2026-01-01T00:00:00.000Z") // "job_01-2026-01-01T00-00-00-000Z"
 */
export function workflowInstanceId(idempotencyKey: string): string {
  const sanitized = idempotencyKey.replace(/[^a-zA-Z0-9_-]/g, "-").slice(0, 100);
  return /^[a-zA-Z0-9_]/.test(sanitized) ? sanitized : `_${sanitized.slice(0, 99)}`;
}

/** What a run tells a Workflow instance (`event.payload`) or a queue consumer (`message.body`). */
export interface BindingDelivery {
  idempotency_key: string;
  job_id: string;
  run_id: string;
  scheduled_at: string;
  attempt: number;
  body: unknown;
}
