import { calendars } from "./routes/calendars";
import { Hono } from "hono";
import { logEvent } from "../log";
import { HTTPException } from "hono/http-exception";
import { consoleApp } from "../admin";
import { allowedMethods } from "./allowed-methods";
import { authenticate } from "./middleware/auth";
import { asDomainError, problemOf, problemResponse } from "./problem";
import { alerts } from "./routes/alerts";
import { apiKeys } from "./routes/api-keys";
import { deadLetters } from "./routes/dead-letters";
import { jobs } from "./routes/jobs";
import { me } from "./routes/me";
import { openapi } from "./routes/openapi";
import { runs } from "./routes/runs";
import { schedules } from "./routes/schedules";
import { stats } from "./routes/stats";
import { tenants } from "./routes/tenants";
import type { AppEnv } from "./types";

export const app = new Hono<AppEnv>();

app.get("/healthz", (c) => c.json({ status: "ok" }));
// The console authenticates with its own session cookie, not the API's bearer token.
app.route("/console", consoleApp);
// Registered before the auth middleware: the document is public.
app.route("/v1/openapi.json", openapi);

app.use("/v1/*", authenticate);
app.route("/v1/me", me);
app.route("/v1/tenants", tenants);
app.route("/v1/api-keys", apiKeys);
app.route("/v1/schedules", schedules);
app.route("/v1/jobs", jobs);
app.route("/v1/runs", runs);
app.route("/v1/dead-letters", deadLetters);
app.route("/v1/alerts", alerts);
app.route("/v1/stats", stats);
app.route("/v1/calendars", calendars);

app.notFound((c) => {
  const allowed = allowedMethods(app, c.req.path);
  if (allowed.length === 0) return problemResponse(problemOf(404, "not_found", "No such route"));
  return problemResponse(
    problemOf(405, "method_not_allowed", `${c.req.method} is not allowed here; use ${allowed.join(", ")}`),
    { allow: allowed.join(", ") },
  );
});

/** The one place an error becomes an HTTP response. */
app.onError((error) => {
  const domain = asDomainError(error);
  if (domain !== null) {
    const headers: Record<string, string> = domain.status === 401 ? { "www-authenticate": "Bearer" } : {};
    return problemResponse(problemOf(domain.status, domain.code, domain.detail, domain.errors), headers);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return problemResponse(problemOf(error.status, "http_error", error.message || "Request refused"));
  }
  logEvent("api.unhandled_error", { error });
  return problemResponse(problemOf(500, "internal_error", "Something went wrong on our side"));
});
