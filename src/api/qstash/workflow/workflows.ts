// The routes of Upstash Workflow runs (./workflow-message.ts keeps them): the SDK reads a run's
// steps on every delivery and ends the run after its last step.
import { Hono } from "hono";
import { saveJobVersion } from "../../../service/job-writes";
import { findMessageJob } from "../../../service/qstash/messages";
import {
  endWorkflowRun,
  findWorkflowRun,
  listWaitDeadlines,
  listWorkflowSteps,
} from "../../../service/qstash/workflow-store";
import type { AppEnv } from "../../http/app-env";
import { badRequest, notFound } from "../errors";
import { WAIT_TIMEOUT_CALL_TYPE } from "./workflow-events";
import { workflowLogs } from "./workflow-logs";

export const workflows = new Hono<AppEnv>();

workflows.route("/events", workflowLogs);

/** The run's steps as the SDK reads them: the first is the run's initial body, each base64. */
workflows.get("/runs/:runId", async (c) => {
  const tenantId = c.get("tenantId");
  const runId = c.req.param("runId");
  const run = await findWorkflowRun(c.env, tenantId, runId);
  // An ended run answers 404: the SDK then knows a late delivery has nothing left to do.
  if (run === null || run.state !== "RUN_STARTED") throw notFound(`workflow run ${runId} is not running`);
  const steps = await listWorkflowSteps(c.env, tenantId, runId);
  const deadlines = await listWaitDeadlines(c.env, tenantId, runId);
  const nowMs = Date.now();
  // A wait's timeout is a step only once its deadline has passed; before, the run is waiting.
  const visible = steps.flatMap((step) => {
    if (step.call_type !== WAIT_TIMEOUT_CALL_TYPE) return [step];
    const deadlineMs = deadlines.get(step.message_id);
    return deadlineMs !== undefined && deadlineMs > nowMs ? [] : [{ ...step, call_type: "step" }];
  });
  return c.json(
    visible.map((step) => ({ messageId: step.message_id, body: step.body_base64, callType: step.call_type })),
  );
});

/**
 * Ends the run: `cancel=true` cancels it and its messages still waiting (a sleep, a retry);
 * otherwise the SDK reports its last step done, with the run's result as the body. Ending a run
 * that already ended answers 200, so a step delivered twice does not fail at the very end.
 */
workflows.delete("/runs/:runId", async (c) => {
  const tenantId = c.get("tenantId");
  const runId = c.req.param("runId");
  const nowMs = Date.now();
  const run = await findWorkflowRun(c.env, tenantId, runId);
  if (run === null) throw notFound(`workflow run ${runId} not found`);
  const cancel = c.req.query("cancel") === "true";
  if (cancel) await cancelRun(c.env, tenantId, runId, nowMs);
  else
    await endWorkflowRun(c.env, tenantId, runId, { state: "RUN_SUCCESS", result: await c.req.text() }, nowMs);
  return c.body(null, 200);
});

/**
 * Cancels the runs the query names by id (`workflowRunIds`, repeated or comma-separated). Any
 * other filter is refused, naming it, so a cancel never reaches more runs than it selects.
 */
workflows.delete("/runs", async (c) => {
  const url = new URL(c.req.url);
  const unknown = [...new Set(url.searchParams.keys())].filter((name) => name !== "workflowRunIds");
  const ids = url.searchParams
    .getAll("workflowRunIds")
    .flatMap((value) => value.split(","))
    .map((id) => id.trim());
  const runIds = [...new Set(ids)];
  const emptyId = ids.includes("");
  if (unknown.length > 0 || runIds.length === 0 || emptyId) {
    throw badRequest([
      ...unknown.map((name) => ({
        header: name,
        message: "is not a filter edgecron serves for workflow runs",
      })),
      ...(runIds.length === 0 ? [{ header: "workflowRunIds", message: "must name at least one run" }] : []),
      ...(emptyId && runIds.length > 0
        ? [{ header: "workflowRunIds", message: "must not hold an empty id" }]
        : []),
    ]);
  }
  const nowMs = Date.now();
  let cancelled = 0;
  for (const runId of runIds) if (await cancelRun(c.env, c.get("tenantId"), runId, nowMs)) cancelled += 1;
  return c.json({ cancelled });
});

/** Cancels a started run and its messages still waiting; false when it was not started. */
async function cancelRun(env: Env, tenantId: string, runId: string, nowMs: number): Promise<boolean> {
  const ended = await endWorkflowRun(env, tenantId, runId, { state: "RUN_CANCELED", result: null }, nowMs);
  if (ended) await cancelWaitingMessages(env, tenantId, runId, nowMs);
  return ended;
}

/** Deletes the run's messages not yet delivered, as DELETE /v2/messages/{id} does one. */
async function cancelWaitingMessages(
  env: Env,
  tenantId: string,
  runId: string,
  nowMs: number,
): Promise<number> {
  let cancelled = 0;
  for (const step of await listWorkflowSteps(env, tenantId, runId)) {
    const job = await findMessageJob(env, tenantId, step.message_id);
    if (job === null || job.status !== "ACTIVE") continue;
    await saveJobVersion(env, job, { status: "DELETED" }, nowMs);
    cancelled += 1;
  }
  return cancelled;
}
