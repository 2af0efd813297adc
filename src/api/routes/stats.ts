import { Hono } from "hono";
import type { AppEnv } from "../types";

export const stats = new Hono<AppEnv>();
