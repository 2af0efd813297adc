// GET /v2/flowControl/{key}: a flow-control key's state (runs waiting, calls in flight, rate
// used) in the shape the client's flowControl.get parses, from the key's flow gate; and
// POST /v2/flowControl/{key}/resetRate, which starts the key's rate window over now, and
// /pause and /resume, which hold the key's runs at their shards and let them go again.
import { Hono } from "hono";
import {
  flowControlState,
  qstashFlowControlInfo,
  resetFlowControlRate,
  setFlowControlPaused,
} from "../../../gate/client";
import type { AppEnv } from "../../http/app-env";

export const flowControl = new Hono<AppEnv>();

flowControl.get("/:key", async (c) => {
  const key = c.req.param("key");
  return c.json(qstashFlowControlInfo(key, await flowControlState(c.env, c.get("tenantId"), key)));
});

flowControl.post("/:key/resetRate", async (c) => {
  await resetFlowControlRate(c.env, c.get("tenantId"), c.req.param("key"));
  return c.body(null, 200);
});

flowControl.post("/:key/pause", async (c) => {
  await setFlowControlPaused(c.env, c.get("tenantId"), c.req.param("key"), true);
  return c.body(null, 200);
});

flowControl.post("/:key/resume", async (c) => {
  await setFlowControlPaused(c.env, c.get("tenantId"), c.req.param("key"), false);
  return c.body(null, 200);
});
