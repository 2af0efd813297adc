import { Hono } from "hono";
import type { AppEnv } from "../types";

export const deadLetters = new Hono<AppEnv>();
