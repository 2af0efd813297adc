// How a door lets a push finish after its answer: the request's waitUntil, handed to the
// application layer (src/service) as a plain option so the service knows no HTTP framework.
import type { Context } from "hono";
import type { PushOptions } from "../../service/job-writes";
import type { AppEnv } from "./app-env";

/** The request's waitUntil, when it has one (an in-process console call may not). */
export function pushOptionsOf(c: Context<AppEnv>): PushOptions {
  try {
    const ctx = c.executionCtx;
    return { waitUntil: (promise) => ctx.waitUntil(promise) };
  } catch {
    return {};
  }
}
