// The routes of Upstash Workflow runs (./workflow-message.ts keeps them): the SDK reads a run's
// steps on every delivery and ends the run after its last step.
import { Hono } from "hono";
import { jobStores } from "../../db/databases";
import { findStoredJob } from "../../db/job-store";
import { endWorkflowRun, findWorkflowRun, listWorkflowSteps } from "../../db/workflow-runs";
import { saveJobVersion } from "../job-service";
import type { AppEnv } from "../types";
import { notFound } from "./errors";

export const workflows = new Hono<AppEnv>();

/** The run's steps as the SDK reads them: the first is the run's initial body, each base64. */
workflows.get("/runs/:runId", async (c) => {
  const tenantId = c.get("tenantId");
  const runId = c.req.param("runId");
  const run = await findWorkflowRun(c.env.DB, tenantId, runId);
  // An ended run answers 404: the SDK then knows a late delivery has nothing left to do.
  if (run === null || run.state !== "RUN_STARTED") throw notFound(`workflow run ${runId} is not running`);
  const steps = await listWorkflowSteps(c.env.DB, tenantId, runId);
  return c.json(
    steps.map((step) => ({ messageId: step.message_id, body: step.body_base64, callType: step.call_type })),
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
  const run = await findWorkflowRun(c.env.DB, tenantId, runId);
  if (run === null) throw notFound(`workflow run ${runId} not found`);
  const cancel = c.req.query("cancel") === "true";
  const result = cancel ? null : await c.req.text();
  const state = cancel ? "RUN_CANCELED" : "RUN_SUCCESS";
  const ended = await endWorkflowRun(c.env.DB, tenantId, runId, { state, result }, nowMs);
  if (ended && cancel) await cancelWaitingMessages(c.env, tenantId, runId, nowMs);
  return c.body(null, 200);
});

/** Deletes the run's messages not yet delivered, as DELETE /v2/messages/{id} does one. */
async function cancelWaitingMessages(
  env: Env,
  tenantId: string,
  runId: string,
  nowMs: number,
): Promise<number> {
  let cancelled = 0;
  for (const step of await listWorkflowSteps(env.DB, tenantId, runId)) {
    const job = await findStoredJob(jobStores(env), tenantId, step.message_id);
    if (job === null || job.status !== "ACTIVE") continue;
    await saveJobVersion(env, job, { status: "DELETED" }, nowMs);
    cancelled += 1;
  }
  return cancelled;
}
