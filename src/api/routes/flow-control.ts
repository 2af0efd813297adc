import { createRoute } from "@hono/zod-openapi";
import { flowControlState } from "../../gate/client";
import { flowControlResource } from "../flow-control-view";
import { tenantScope } from "../middleware/auth";
import { flowControlParams, flowControlStateSchema } from "../openapi/components";
import { apiRouter, defineRoute, json, problems, TENANT_ERRORS, tenantHeaders } from "../openapi/define";

export const flowControl = apiRouter();

flowControl.use("*", tenantScope);

/** A key of the caller's tenant (keys are per tenant: another tenant's key of the same name is another gate). */
defineRoute(
  flowControl,
  createRoute({
    method: "get",
    path: "/{key}",
    operationId: "getFlowControl",
    summary: "A flow-control key's state: runs waiting, calls in flight, rate used, limits",
    tags: ["flow-control"],
    request: { params: flowControlParams, headers: tenantHeaders },
    responses: {
      200: json(flowControlStateSchema, "The key's state (zeros and null limits for a key no run used)"),
      ...problems(...TENANT_ERRORS, "validation_failed"),
    },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const state = await flowControlState(c.env, c.get("tenantId"), key);
    return c.json(flowControlResource(key, state));
  },
);
