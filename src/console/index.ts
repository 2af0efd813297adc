// The admin console: server-rendered pages under /console that read and act through the API.
import { Hono } from "hono";
import { trimTrailingSlash } from "hono/trailing-slash";
import { boundedBody } from "../api/http/body";
import type { ConsoleEnv } from "./env";
import { alertRoutes } from "./routes/alerts";
import { authRoutes } from "./routes/auth";
import { calendarRoutes } from "./routes/calendars";
import { controlRoutes } from "./routes/control";
import { jobActionRoutes } from "./routes/job-actions";
import { jobRoutes } from "./routes/jobs";
import { limitsRoutes } from "./routes/limits";
import { overviewRoutes } from "./routes/overview";
import { runRoutes } from "./routes/runs";
import { readableForm, requireSession, sameOriginOnly, securityHeaders } from "./security";

export const consoleApp = new Hono<ConsoleEnv>();

// `/console/` and friends redirect to the slash-less page (only when nothing else matched).
// A posted form is read through the API's one bounded body reader (413 past 1 MiB) before anything parses it.
consoleApp.use("*", boundedBody, trimTrailingSlash(), securityHeaders, sameOriginOnly, readableForm);
// Assets are served before the Worker runs; this only answers if a request reaches us anyway.
consoleApp.get("/assets/*", (c) => c.env.ASSETS.fetch(c.req.raw));
// Sign-in is registered before the session guard, so it is the only page reachable without one.
consoleApp.route("/", authRoutes);

const signedIn = new Hono<ConsoleEnv>();
signedIn.use("*", requireSession);
signedIn.route("/", overviewRoutes);
signedIn.route("/", jobRoutes);
signedIn.route("/", controlRoutes);
signedIn.route("/", jobActionRoutes);
signedIn.route("/", runRoutes);
signedIn.route("/", alertRoutes);
signedIn.route("/", calendarRoutes);
signedIn.route("/", limitsRoutes);
consoleApp.route("/", signedIn);
