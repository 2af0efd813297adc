import type { Context } from "hono";
import { z } from "zod";
import type { JobSpec } from "../../core/jobs/job-spec";
import type { AppEnv } from "../http/app-env";
import { type FieldError, fieldErrorsOf } from "../http/problem";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Fields replaced as a whole rather than merged: a schedule is one unit, a target body is opaque. */
const REPLACED_WHOLE = new Set(["schedule", "target.body"]);

/**
 * JSON Merge Patch (RFC 7396) of a partial job body onto the stored spec: objects merge, `null`
 * removes a field (so a nullable field falls back to its default, null), everything else
 * replaces. `schedule` and `target.body` are replaced whole; `schedules` (an array) too, and
 * giving one of `schedule` / `schedules` drops the other; so is `target` when the patch changes
 * its `type`.
 */
export function mergeJobPatch(spec: JobSpec, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = mergeAt(spec, patch, "") as Record<string, unknown>;
  // `schedule` and `schedules` are alternatives: setting one replaces the other.
  if (patch.schedule !== undefined && patch.schedule !== null) delete merged.schedules;
  if (patch.schedules !== undefined && patch.schedules !== null) delete merged.schedule;
  return merged;
}

function mergeAt(target: unknown, patch: unknown, path: string): unknown {
  if (!isPlainObject(patch) || REPLACED_WHOLE.has(path) || changesTargetKind(target, patch, path))
    return patch;
  const merged: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else setOwn(merged, key, mergeAt(merged[key], value, path === "" ? key : `${path}.${key}`));
  }
  return merged;
}

/** A patch that turns an HTTP target into a binding (or back) replaces it: no field carries over. */
function changesTargetKind(target: unknown, patch: Record<string, unknown>, path: string): boolean {
  if (path !== "target" || patch.type === undefined || !isPlainObject(target)) return false;
  return patch.type !== (target.type ?? "http");
}

/** Assigns as an own property even for `__proto__`, so validation sees (and rejects) it. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const versionSchema = z.number().int().min(1);

/**
 * The version the client expects to replace: the body's `version` field or `If-Match`
 * (`3`, `"3"` or `W/"3"`); null when the client sent neither (last write wins). Problems come
 * back as field errors, so the route reports them together with the body's.
 */
export function expectedVersionOf(
  c: Context<AppEnv>,
  body: Record<string, unknown>,
): { version: number | null; errors: FieldError[] } {
  const parsed = body.version === undefined ? null : versionSchema.safeParse(body.version);
  if (parsed !== null && !parsed.success) {
    return { version: null, errors: fieldErrorsOf(parsed.error.issues, ["version"]) };
  }
  const fromBody = parsed?.data ?? null;
  const header = c.req.header("if-match");
  if (header === undefined) return { version: fromBody, errors: [] };
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!match) {
    return {
      version: null,
      errors: [{ path: "If-Match", message: 'must be the job\'s version, such as 3 or "3"' }],
    };
  }
  const fromHeader = Number(match[1]);
  if (fromBody !== null && fromBody !== fromHeader) {
    return { version: null, errors: [{ path: "version", message: "disagrees with the If-Match header" }] };
  }
  return { version: fromHeader, errors: [] };
}
