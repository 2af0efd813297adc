// The QStash-compatible /v2 API: what @upstash/qstash calls, served beside /v1 by the same
// Worker. The QStash token is a tenant API key (or the admin token with Edgecron-Tenant); every
// error is QStash's `{"error": "..."}` body (src/api/qstash/errors.ts).
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { authenticate, tenantScope } from "../http/auth";
import { EdgecronError } from "../http/problem";
import { dlq } from "./dlq/dlq";
import { qstashErrorResponse } from "./errors";
import { keys } from "./keys";
import { events } from "./messages/events";
import { messages } from "./messages/messages";
import { publish } from "./messages/publish";
import { flowControl } from "./queues/flow-control";
import { globalParallelism } from "./queues/global-parallelism";
import { queues } from "./queues/queues";
import { qstashSchedules } from "./schedules/schedules";
import { urlGroups } from "./url-groups/url-groups";
import { listWorkflowDlq, workflowDlq } from "./workflow/workflow-dlq";
import { workflowEvents } from "./workflow/workflow-events";
import { workflows } from "./workflow/workflows";

export const qstashApi = new Hono<AppEnv>();

qstashApi.onError(qstashErrorResponse);
qstashApi.use("*", authenticate, tenantScope);
qstashApi.route("/", publish);
qstashApi.route("/messages", messages);
qstashApi.route("/keys", keys);
qstashApi.route("/schedules", qstashSchedules);
qstashApi.route("/queues", queues);
qstashApi.route("/topics", urlGroups);
qstashApi.route("/flowControl", flowControl);
qstashApi.route("/globalParallelism", globalParallelism);
// The Workflow SDK lists its DLQ at /v2/dlq with `source=workflow`; any other list is the DLQ's.
qstashApi.get("/dlq", async (c, next) =>
  new URL(c.req.url).searchParams.get("source") === "workflow" ? listWorkflowDlq(c) : next(),
);
qstashApi.route("/dlq", dlq);
qstashApi.route("/events", events);
qstashApi.route("/logs", events);
qstashApi.route("/workflows/dlq", workflowDlq);
qstashApi.route("/workflows", workflows);
qstashApi.route("/", workflowEvents);

/** What the client can call but edgecron does not serve: a clear 404, never an empty answer. */
const NOT_SERVED: [prefix: string, why: string][] = [
  [
    "/flowControl",
    "pin, unpin and the key list are not served (GET /v2/flowControl/{key}, pause, resume and resetRate are)",
  ],
  ["/llm", "LLM APIs are not served"],
];

// Keep this last: routes registered after it would never be reached.
qstashApi.all("*", (c) => {
  const path = new URL(c.req.url).pathname.replace(/^\/v2/, "");
  const known = NOT_SERVED.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  const why = known?.[1] ?? "no such route";
  throw new EdgecronError(
    "not_found",
    `${c.req.method} /v2${path}: ${why} (see README "Coming from QStash")`,
  );
});
