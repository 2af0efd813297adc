import { Hono } from "hono";
import { consoleApp } from "../admin";

export const app = new Hono<{ Bindings: Env }>();

app.get("/healthz", (c) => c.json({ status: "ok" }));
app.route("/console", consoleApp);
