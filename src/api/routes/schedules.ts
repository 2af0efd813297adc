import { createRoute } from "@hono/zod-openapi";
import { readBody } from "../body";
import { previewScheduleTimes } from "../job-service";
import {
  AUTH_ERRORS,
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  json,
  jsonBody,
  problems,
} from "../openapi/define";
import { previewRequestSchema, previewResultSchema } from "../openapi/components";

export const schedules = apiRouter();

/**
 * The next `count` instants strictly after `from` (default now). An interval without anchor is
 * anchored at `from`; a delay counts from now.
 */
defineRoute(
  schedules,
  createRoute({
    method: "post",
    path: "/preview",
    operationId: "previewSchedule",
    summary: "The next fire times of a schedule, without creating anything",
    tags: ["schedules"],
    request: { body: jsonBody(previewRequestSchema) },
    responses: {
      200: json(previewResultSchema, "The next `count` instants after `from`"),
      ...problems(...AUTH_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const body = await readBody(c, previewRequestSchema);
    const nowMs = Date.now();
    const fromMs = body.from === undefined ? nowMs : Date.parse(body.from);
    return c.json({ fire_times: previewScheduleTimes(body.schedule, nowMs, fromMs, body.count) });
  },
);
