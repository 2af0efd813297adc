import { Hono } from "hono";
import type { AppEnv } from "../types";

export const openapi = new Hono<AppEnv>();
