import { Hono } from "hono";
import { z } from "zod";
import { scheduleSchema } from "../../core/job-spec";
import { readBody } from "../body";
import { previewScheduleTimes } from "../job-service";
import type { AppEnv } from "../types";

export const MAX_PREVIEW_COUNT = 1000;

export const previewRequestSchema = z.strictObject({
  schedule: scheduleSchema,
  count: z.number().int().min(1).max(MAX_PREVIEW_COUNT).default(5),
  from: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" }).optional(),
});

export const schedules = new Hono<AppEnv>();

/**
 * The next `count` instants strictly after `from` (default now). An interval without anchor is
 * anchored at `from`; a delay counts from now.
 */
schedules.post("/preview", async (c) => {
  const body = await readBody(c, previewRequestSchema);
  const nowMs = Date.now();
  const fromMs = body.from === undefined ? nowMs : Date.parse(body.from);
  return c.json({ fire_times: previewScheduleTimes(body.schedule, nowMs, fromMs, body.count) });
});
