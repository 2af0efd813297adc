// A job body checked for a tenant: the deployment's target policy and the tenant's binding
// targets, built here once for every door that checks a job (v1 create, batch and patch, QStash
// publish and schedules), so none of them assembles the context itself.
import type { ExclusionSet } from "../../core/schedules/exclusions";
import type { SearchAllowance } from "../../core/schedules/schedule-check";
import { checkJobInput, type SpecCheck } from "../job-writes";
import { targetPolicyOf } from "../private-targets";
import { targetBindingAccess } from "../target-bindings";

export interface JobCheckOptions {
  /** Where the body sits in the request, for the errors' paths. */
  prefix?: (string | number)[];
  /** The tenant's calendars the body may name (calendarSetsFor); unset: it may name none. */
  calendars?: ReadonlyMap<string, ExclusionSet>;
  /** Shared by the items of one batch, so a batch's schedule searches stay bounded. */
  searchAllowance?: SearchAllowance;
  /** A patch that names a schedule: a one-shot instant already past is refused. */
  rejectPastOnce?: boolean;
}

export function checkJobFor(
  env: Env,
  tenantId: string,
  input: unknown,
  nowMs: number,
  { prefix = [], ...options }: JobCheckOptions = {},
): SpecCheck {
  return checkJobInput(input, nowMs, prefix, {
    targetPolicy: targetPolicyOf(env),
    targets: targetBindingAccess(env, tenantId),
    ...options,
  });
}
