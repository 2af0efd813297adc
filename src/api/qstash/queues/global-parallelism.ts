// GET /v2/globalParallelism: QStash's account-wide cap on calls in flight is a tenant's
// `concurrent_calls` limit here, and the count is its gate's calls in flight now. A tenant with no
// call limit has no gate counting its calls, so it answers 0 for both (0 is "no limit").
import { Hono } from "hono";
import { globalParallelism as parallelismOf } from "../../../service/qstash/queues";
import type { AppEnv } from "../../http/app-env";

export const globalParallelism = new Hono<AppEnv>();

globalParallelism.get("/", async (c) => {
  const { max, inFlight } = await parallelismOf(c.env, c.get("tenantId"));
  return c.json({ parallelismMax: max, parallelismCount: inFlight });
});
