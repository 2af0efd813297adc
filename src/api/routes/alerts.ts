import { Hono } from "hono";
import { z } from "zod";
import { alertResource, listAlerts } from "../../db/alerts";
import { decodeTimeCursor, encodeCursor, limitSchema, pageOf } from "../cursor";
import { tenantScope } from "../middleware/auth";
import { readQuery } from "../query";
import type { AppEnv } from "../types";

const listQuerySchema = z.object({
  kind: z.string().max(100).optional(),
  limit: limitSchema,
  cursor: z.string().max(400).optional(),
});

export const alerts = new Hono<AppEnv>();

alerts.use("*", tenantScope);

alerts.get("/", async (c) => {
  const query = readQuery(c, listQuerySchema);
  const rows = await listAlerts(c.env.DB, c.get("tenantId"), {
    kind: query.kind,
    cursor: decodeTimeCursor(query.cursor),
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (row) => encodeCursor([row.created_at_ms, row.id]));
  return c.json({ data: page.map(alertResource), next_cursor: nextCursor });
});
