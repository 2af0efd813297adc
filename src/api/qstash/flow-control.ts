// GET /v2/flowControl/{key}: a flow-control key's state (runs waiting, calls in flight, rate
// used) in the shape the client's flowControl.get parses, from the key's flow gate.
import { Hono } from "hono";
import { flowControlState, qstashFlowControlInfo } from "../../gate/client";
import type { AppEnv } from "../http/app-env";

export const flowControl = new Hono<AppEnv>();

flowControl.get("/:key", async (c) => {
  const key = c.req.param("key");
  return c.json(qstashFlowControlInfo(key, await flowControlState(c.env, c.get("tenantId"), key)));
});
