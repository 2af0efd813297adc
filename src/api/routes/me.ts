import { Hono } from "hono";
import type { AppEnv } from "../types";

export const me = new Hono<AppEnv>();

me.get("/", (c) => {
  const caller = c.get("caller");
  return c.json({ role: caller.role, tenant_id: caller.tenantId });
});
