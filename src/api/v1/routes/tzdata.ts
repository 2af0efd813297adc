import { createRoute } from "@hono/zod-openapi";
import { requireAdmin } from "../../http/auth";
import { tzdataStatusSchema } from "../openapi/components";
import { ADMIN_ERRORS, apiRouter, defineRoute, json, problems } from "../openapi/define";
import { tzdataView } from "../views/tzdata-view";

/** The tz database version of every shard's timers (admin only: shards span every tenant). */
export const tzdata = apiRouter();

defineRoute(
  tzdata,
  createRoute({
    method: "get",
    path: "/",
    operationId: "getTzdata",
    summary: "The tz database version of every shard's timers and any re-derivation in progress (admin)",
    tags: ["meta"],
    middleware: [requireAdmin],
    responses: {
      200: json(tzdataStatusSchema, "Each shard's version and progress"),
      ...problems(...ADMIN_ERRORS),
    },
  }),
  async (c) => c.json(await tzdataView(c.env)),
);
