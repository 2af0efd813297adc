// GET /v2/globalParallelism: QStash's account-wide cap on calls in flight is a tenant's
// `concurrent_calls` limit here, and the count is its gate's calls in flight now. A tenant with no
// call limit has no gate counting its calls, so it answers 0 for both (0 is "no limit").
import { Hono } from "hono";
import { loadTenantLimits } from "../../../db/tenant-limits";
import { gateState, tenantGate } from "../../../gate/client";
import { tenantLimitDefaults } from "../../../service/admission";
import type { AppEnv } from "../../http/app-env";

export const globalParallelism = new Hono<AppEnv>();

globalParallelism.get("/", async (c) => {
  const tenantId = c.get("tenantId");
  const { limits } = await loadTenantLimits(c.env.DB, tenantId, tenantLimitDefaults(c.env));
  const max = limits.concurrent_calls;
  const inFlight = max === null ? 0 : (await gateState(c.env, tenantGate(tenantId))).inFlight;
  return c.json({ parallelismMax: max ?? 0, parallelismCount: inFlight });
});
