import { createRoute } from "@hono/zod-openapi";
import {
  flowControlKeyState,
  flowControlStates,
  throttledHostStates,
} from "../../../service/flow-control-keys";
import { tenantScope } from "../../http/auth";
import { decodeCursor, encodeCursor, pageOf } from "../../http/cursor";
import {
  flowControlPageSchema,
  flowControlParams,
  flowControlStateSchema,
  pageQuerySchema,
} from "../openapi/components";
import { apiRouter, defineRoute, json, problems, TENANT_ERRORS, tenantHeaders } from "../openapi/define";
import { flowControlResource, throttledHostResource } from "../views/flow-control-view";

export const flowControl = apiRouter();

flowControl.use("*", tenantScope);

defineRoute(
  flowControl,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listFlowControl",
    summary:
      "The tenant's flow-control keys (those a run has used), in name order, with their state, and the hosts its calls are throttled at",
    tags: ["flow-control"],
    request: { query: pageQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(flowControlPageSchema, "A page of keys"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const afterKey = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
    const [rows, hosts] = await Promise.all([
      flowControlStates(c.env, c.get("tenantId"), { limit: query.limit + 1, afterKey }),
      throttledHostStates(c.env, c.get("tenantId")),
    ]);
    const { page, nextCursor } = pageOf(rows, query.limit, (row) => encodeCursor([row.key]));
    return c.json({
      data: page.map((row) => flowControlResource(row.key, row.state)),
      next_cursor: nextCursor,
      hosts: hosts.map(throttledHostResource),
    });
  },
);

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
    const state = await flowControlKeyState(c.env, c.get("tenantId"), key);
    return c.json(flowControlResource(key, state));
  },
);
