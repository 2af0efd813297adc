import { Hono } from "hono";
import { runMaintenancePass } from "../durable-objects/maintenance/pass";
import { app as apiApp } from "./api/app";
import { errorResponse, notFoundFor } from "./api/http/error-responses";
import { testHooks } from "./api/v1/test-hooks";
import { consoleApp } from "./console";
import { handleDeadLetterBatch } from "./delivery/dead-letter-consumer";
import { handleDispatchBatch } from "./delivery/dispatch-consumer";
import { handleSideDeliveryBatch } from "./delivery/side-deliveries";
import { exportTelemetry, telemetryOf } from "./delivery/telemetry-export";
import { logEvent } from "./log";
import { isDispatchQueue } from "./queue/dispatch-queues";
import { SIDE_DELIVERY_QUEUE_NAME } from "./queue/side-delivery-queue";
import type { SideDeliveryMessage } from "./queue/side-delivery-types";
import { meteredEnv, rowsMeterOn, rowsMeterSnapshot } from "./rows-meter";
import { shardCount, watchShard } from "./shard/client";
import type { DeadLetterMessage, DispatchMessage } from "./shard/protocol";

export { Dispatcher } from "../durable-objects/dispatcher/dispatcher";
export { FlowGate } from "../durable-objects/flow-gate/flow-gate";
export { Maintenance } from "../durable-objects/maintenance/maintenance";
export { ShardScheduler } from "../durable-objects/shard/shard-scheduler";

/**
 * Every HTTP path: the console under /console (it authenticates with its own session cookie and
 * calls the API in-process), the API everywhere else. Mounted here, at the entry, so neither
 * imports the other's app back.
 */
const http = new Hono<{ Bindings: Env }>();
http.route("/console", consoleApp);
http.route("/", apiApp);
http.notFound(notFoundFor(http));
http.onError(errorResponse);

const DEAD_LETTER_QUEUE_NAME = "edgecron-dead-letters";

// Once per isolate: make sure the maintenance alarm is armed (it re-arms itself from then on).
let maintenanceEnsured = false;
function ensureMaintenance(env: Env, ctx: ExecutionContext): void {
  if (maintenanceEnsured) return;
  maintenanceEnsured = true;
  ctx.waitUntil(
    env.MAINTENANCE.getByName("maintenance")
      .ensureScheduled()
      .catch(() => {
        maintenanceEnsured = false;
      }),
  );
}

/**
 * `GET /__meter/rows[?reset=1]` with the admin token, only while EDGECRON_ROWS_METER is "1": the
 * rows every store wrote since the last reset (src/rows-meter.ts). The bench reads it per scenario.
 */
async function rowsMeterAnswer(request: Request, env: Env): Promise<Response | null> {
  const url = new URL(request.url);
  if (!rowsMeterOn(env) || !url.pathname.startsWith("/__meter/")) return null;
  const token = env.EDGECRON_ADMIN_TOKEN;
  if (!token || request.headers.get("authorization") !== `Bearer ${token}`) {
    return new Response("forbidden", { status: 403 });
  }
  if (url.pathname === "/__meter/rows") {
    return Response.json(rowsMeterSnapshot({ reset: url.searchParams.get("reset") === "1" }));
  }
  // What a run costs later, measured now: every shard prunes its settled runs and their history
  // as the retention pass would once they are old enough (retention 0: everything settled).
  if (url.pathname === "/__meter/prune" && request.method === "POST") {
    const shards = Array.from({ length: shardCount(env) }, (_, shard) => shard);
    const reports = await Promise.all(
      shards.map((shard) => watchShard(env, shard, { runsMs: 0, historyMs: 0 })),
    );
    return Response.json({
      pruned: reports.reduce((sum, report) => sum + report.pruned, 0),
      historyPruned: reports.reduce((sum, report) => sum + report.historyPruned, 0),
    });
  }
  return new Response("not found", { status: 404 });
}

export default {
  fetch(request, rawEnv, ctx) {
    const env = meteredEnv(rawEnv);
    ensureMaintenance(env, ctx);
    if (rowsMeterOn(env) && new URL(request.url).pathname.startsWith("/__meter/")) {
      return rowsMeterAnswer(request, env).then((answer) => answer ?? http.fetch(request, env, ctx));
    }
    if (env.EDGECRON_TEST_HOOKS === "1" && new URL(request.url).pathname.startsWith("/__test/")) {
      return testHooks.fetch(request, env, ctx);
    }
    return http.fetch(request, env, ctx);
  },

  async queue(batch, rawEnv, ctx) {
    const env = meteredEnv(rawEnv);
    ensureMaintenance(env, ctx);
    if (isDispatchQueue(batch.queue)) {
      return handleDispatchBatch(batch as MessageBatch<DispatchMessage>, env, ctx);
    }
    if (batch.queue === DEAD_LETTER_QUEUE_NAME) {
      await handleDeadLetterBatch(batch as MessageBatch<DeadLetterMessage | DispatchMessage>, env);
      return exportTelemetry(telemetryOf(env), ctx);
    }
    if (batch.queue === SIDE_DELIVERY_QUEUE_NAME) {
      await handleSideDeliveryBatch(batch as MessageBatch<SideDeliveryMessage>, env, ctx);
      return exportTelemetry(telemetryOf(env), ctx);
    }
    logEvent("queue.unknown", { queue: batch.queue });
    batch.retryAll();
  },

  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(runMaintenancePass(meteredEnv(env), Date.now()));
  },
} satisfies ExportedHandler<Env>;
