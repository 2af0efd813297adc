import { Hono } from "hono";
import type { AppEnv } from "../types";

export const alerts = new Hono<AppEnv>();
