import { Hono } from "hono";
import { requireAdmin } from "../middleware/auth";
import { tzdataView } from "../tzdata-view";
import type { AppEnv } from "../types";

/** The tz database version of every shard's timers (admin only: shards span every tenant). */
export const tzdata = new Hono<AppEnv>();

tzdata.get("/", requireAdmin, async (c) => c.json(await tzdataView(c.env)));
