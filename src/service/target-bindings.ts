// Which Cloudflare bindings a tenant may name as a job's target: those TARGET_BINDINGS lists
// (of the kind it lists, for the tenants it lists) and that this deployment really has.

import type { FieldError } from "../core/common/errors";
import { joinPath } from "../core/common/field-errors";
import {
  type AllowedBinding,
  BINDING_TARGET_KINDS,
  type BindingTargetKind,
  bindingTargetProblem,
  isBindingName,
  parseTargetBindings,
} from "../core/targets/targets";
import { logEvent } from "../log";

export interface TargetBindingAccess {
  allowed: ReadonlyMap<string, AllowedBinding>;
  tenantId: string;
  /** Whether the Worker has a binding of this name (an allow-list can name one never declared). */
  declared: (name: string) => boolean;
}

const parsedLists = new Map<string, ReadonlyMap<string, AllowedBinding>>();

/** The access of one tenant under this deployment's TARGET_BINDINGS (parsed once per value). */
export function targetBindingAccess(env: Env, tenantId: string): TargetBindingAccess {
  const value = env.TARGET_BINDINGS ?? "";
  let allowed = parsedLists.get(value);
  if (allowed === undefined) {
    const parsed = parseTargetBindings(value);
    if (parsed.ignored.length > 0) logEvent("config.target_bindings_ignored", { entries: parsed.ignored });
    allowed = parsed.allowed;
    parsedLists.set(value, allowed);
  }
  const bindings = env as unknown as Record<string, unknown>;
  return { allowed, tenantId, declared: (name) => bindings[name] !== undefined };
}

/**
 * A 400's field error for a binding target this tenant may not use, checked on the raw body so
 * it is reported whatever else in the body is wrong. A job without a binding target: none.
 */
export function bindingTargetErrors(
  input: unknown,
  access: TargetBindingAccess | undefined,
  prefix: (string | number)[],
): FieldError[] {
  const target = bindingTargetOf(input);
  if (target === null) return [];
  const problem =
    access === undefined
      ? "binding targets are not available here"
      : (bindingTargetProblem(access.allowed, target, access.tenantId) ??
        (access.declared(target.binding)
          ? null
          : "is listed in TARGET_BINDINGS but not declared as a binding in wrangler.toml"));
  return problem === null ? [] : [{ path: joinPath([...prefix, "target.binding"]), message: problem }];
}

function bindingTargetOf(input: unknown): { type: BindingTargetKind; binding: string } | null {
  if (typeof input !== "object" || input === null) return null;
  const target = (input as Record<string, unknown>).target;
  if (typeof target !== "object" || target === null) return null;
  const { type, binding } = target as Record<string, unknown>;
  if (!BINDING_TARGET_KINDS.includes(type as BindingTargetKind) || typeof binding !== "string") return null;
  // A malformed name already has its own error from the schema.
  if (!isBindingName(binding)) return null;
  return { type: type as BindingTargetKind, binding };
}
