// Which methods a path answers, from the app's own router: a request with another method on a
// route that exists gets 405 with `Allow` (RFC 9110 §15.5.6), not a 404 that says it isn't there.
import type { Hono } from "hono";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** A method no route uses: what it matches is middleware alone (`use`, registered for every method). */
const NO_ROUTE_METHOD = "EDGECRON-NONE";

// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type.
type AnyHono = Hono<any, any, any>;

function handlerCount(app: AnyHono, method: string, path: string): number {
  return app.router.match(method, path)[0].length;
}

/** The methods with a route at `path` (HEAD with GET), or [] when no route has this path. */
export function allowedMethods(app: AnyHono, path: string): string[] {
  const middlewareOnly = handlerCount(app, NO_ROUTE_METHOD, path);
  const allowed: string[] = METHODS.filter((method) => handlerCount(app, method, path) > middlewareOnly);
  if (allowed.includes("GET")) allowed.push("HEAD");
  return allowed;
}
