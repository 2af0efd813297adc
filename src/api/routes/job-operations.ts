import { Hono } from "hono";
import type { AppEnv } from "../types";

export const jobOperations = new Hono<AppEnv>();
