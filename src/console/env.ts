import type { Context } from "hono";
import type { Session } from "../service/console-sessions";

/** Hono environment of the console: the Worker bindings plus what the session middleware sets. */
export interface ConsoleEnv {
  Bindings: Env;
  Variables: {
    session: Session;
    /** CSRF token every form of this session carries. */
    csrf: string;
  };
}

export type ConsoleContext = Context<ConsoleEnv>;

export const BASE = "/console";
