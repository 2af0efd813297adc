import { Hono } from "hono";
import { errorResponse, notFoundResponse } from "./errors";
import { authenticate } from "./middleware/auth";
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

app.notFound(notFoundResponse);
app.onError(errorResponse);
