import { Hono } from "hono";
import type { AppEnv } from "../types";

export const jobs = new Hono<AppEnv>();
