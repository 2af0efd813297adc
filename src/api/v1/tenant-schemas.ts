// The v1 API's answers about tenants: a tenant, its limits, its API keys.
import { z } from "zod";
import { tenantLimitsPutSchema as tenantLimitsPut } from "../../core/load/tenant-limits";
import { count, list, nullableTime, time } from "./schema-fields";

export const tenantSchema = z.object({
  id: z.string().meta({ example: "ten_01JDXS3M0000000000000000AB" }),
  name: z.string(),
  alert_webhook_url: z.string().nullable(),
  signing_secret: z.string(),
  signing_secret_next: z.string().nullable(),
  created_at: time,
  suspended_at: time.nullable().meta({
    description: "When an admin suspended the tenant (nothing of it runs); null: not suspended",
  }),
});

const limitValue = z.number().int().nullable().meta({ description: "null: no limit" });
/** A tenant's limits as they apply now (its overrides over the deployment's defaults). */
export const tenantLimitsSchema = z.object({
  tenant_id: z.string(),
  active_jobs: limitValue,
  creates_per_second: limitValue,
  triggers_per_second: limitValue,
  concurrent_calls: limitValue,
  weight: z.number().int().min(1).meta({
    description:
      "The tenant's weight in the fair share of a saturated dispatch window (default 1): a weight-2 tenant is sent about twice a weight-1 tenant's runs",
  }),
  /** The limits this tenant overrides (and `weight` when set); the rest are the deployment's defaults. */
  overridden: z.array(z.string()),
  defaults: z.object({
    active_jobs: limitValue,
    creates_per_second: limitValue,
    triggers_per_second: limitValue,
    concurrent_calls: limitValue,
    weight: z.number().int().min(1),
  }),
  /** The tenant's dispatch gate now (null when it has no trigger or call limit). */
  dispatch: z.object({ waiting: count, in_flight: count, triggers_in_window: count }).nullable().meta({
    description: "Runs waiting for the tenant's own limits, calls in flight, starts in the last second",
  }),
});
/** PUT replaces the overrides: a positive integer, null for no limit, absent for the default. */
export const tenantLimitsPutSchema = tenantLimitsPut;

/** A key as listed: never the secret. */
export const apiKeyListedSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string().nullable(),
  key_prefix: z.string(),
  created_at: time,
  revoked_at: nullableTime,
});
export const apiKeySchema = apiKeyListedSchema.extend({
  key: z.string().meta({ description: "Shown once, in the create response only", example: "ek_3f9a..." }),
});
export const apiKeyRevokedSchema = z.object({ id: z.string(), revoked_at: time });

export const tenantListSchema = list(tenantSchema);
export const apiKeyListSchema = list(apiKeyListedSchema);
