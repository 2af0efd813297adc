import { Hono } from "hono";
import type { AppEnv } from "../types";

export const runs = new Hono<AppEnv>();
