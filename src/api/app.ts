import { createRoute } from "@hono/zod-openapi";
import { tzdataVersion } from "../tzdata";
import { authenticate } from "./http/auth";
import { boundedBody } from "./http/body";
import { errorResponse, notFoundFor } from "./http/error-responses";
import { qstashApi } from "./qstash/app";
import { isBodyCapRefusal, problemWithQstashError, qstashErrorResponse } from "./qstash/errors";
import { healthSchema, openApiDocumentSchema } from "./v1/openapi/components";
import { apiRouter, defineRoute, json } from "./v1/openapi/define";
import { documentOf } from "./v1/openapi/document";
import { alerts } from "./v1/routes/alerts";
import { apiKeys } from "./v1/routes/api-keys";
import { calendars } from "./v1/routes/calendars";
import { deadLetters } from "./v1/routes/dead-letters";
import { flowControl } from "./v1/routes/flow-control";
import { jobLayout } from "./v1/routes/job-layout";
import { jobs } from "./v1/routes/jobs";
import { me } from "./v1/routes/me";
import { runCallbacks } from "./v1/routes/run-callbacks";
import { runs } from "./v1/routes/runs";
import { scheduleFiles } from "./v1/routes/schedule-files";
import { schedules } from "./v1/routes/schedules";
import { stats } from "./v1/routes/stats";
import { tenantLimits } from "./v1/routes/tenant-limits";
import { tenantSuspension } from "./v1/routes/tenant-suspension";
import { tenants } from "./v1/routes/tenants";
import { tzdata } from "./v1/routes/tzdata";

/** The v1 API; the entry (src/index.ts) mounts it beside the console. */
export const app = apiRouter();

// First of all: no route reads more than MAX_BODY_BYTES of a body, however it reads it (413).
app.use("*", boundedBody);

// Public, so defined before the auth middleware: a handler that answers ends the chain.
defineRoute(
  app,
  createRoute({
    method: "get",
    path: "/healthz",
    operationId: "getHealth",
    summary: "Liveness, and the tz database version fire times are computed with",
    tags: ["meta"],
    security: [],
    responses: { 200: json(healthSchema, "The Worker answers") },
  }),
  (c) => c.json({ status: "ok" as const, tzdata: tzdataVersion(c.env) }),
);

const openApiDocument = documentOf(app);
defineRoute(
  app,
  createRoute({
    method: "get",
    path: "/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI 3.1 document, generated from the route definitions",
    tags: ["meta"],
    security: [],
    responses: { 200: json(openApiDocumentSchema, "The document") },
  }),
  (c) => c.json(openApiDocument()),
);

// A long-running target reports back with its run token instead of an API key.
app.route("/v1/runs", runCallbacks);

app.use("/v1/*", authenticate);
app.route("/v1/me", me);
app.route("/v1/tenants", tenants);
app.route("/v1/tenants", tenantLimits);
app.route("/v1/tenants", tenantSuspension);
app.route("/v1/api-keys", apiKeys);
app.route("/v1/schedules", schedules);
app.route("/v1/jobs", jobs);
app.route("/v1/runs", runs);
app.route("/v1/dead-letters", deadLetters);
app.route("/v1/alerts", alerts);
app.route("/v1/stats", stats);
app.route("/v1/tzdata", tzdata);
app.route("/v1/calendars", calendars);
app.route("/v1/admin/job-layout", jobLayout);
app.route("/v1/flow-control", flowControl);
app.route("/v1", scheduleFiles);
// The QStash-compatible API: its own auth chain and `{"error"}` bodies (src/api/qstash/app.ts).
app.route("/v2", qstashApi);

app.notFound(notFoundFor(app));
// What fails before a /v2 route runs answers in QStash's shape; the body cap's 413 is the problem
// every route answers, carrying QStash's `error` field too (./qstash/errors.ts).
app.onError((error, c) => {
  if (c.req.path !== "/v2" && !c.req.path.startsWith("/v2/")) return errorResponse(error, c);
  if (isBodyCapRefusal(error)) return problemWithQstashError(errorResponse(error, c));
  return qstashErrorResponse(error, c);
});
