// What the /v2 workflow routes keep in D1: a workflow run with its steps (each step a message),
// and the waiters of `context.waitForEvent` with their timeouts. The routes name the tenant's
// Env; which database holds the rows is decided here.
import * as runs from "../../db/qstash-workflow-runs";
import * as waiters from "../../db/qstash-workflow-waiters";

export type {
  NewWorkflowRun,
  NewWorkflowStep,
  WorkflowRunRow,
  WorkflowRunState,
  WorkflowStepRow,
} from "../../db/qstash-workflow-runs";
export type { WaiterWakeUp, WorkflowWaiterRow } from "../../db/qstash-workflow-waiters";

/** A statement of the workflow tables, asked of the tenant's Env instead of a database handle. */
function onD1<Args extends unknown[], Result>(
  statement: (db: D1Database, ...args: Args) => Result,
): (env: Env, ...args: Args) => Result {
  return (env, ...args) => statement(env.DB, ...args);
}

export const recordWorkflowSteps = onD1(runs.recordWorkflowSteps);
export const findWorkflowRun = onD1(runs.findWorkflowRun);
export const listWorkflowRuns = onD1(runs.listWorkflowRuns);
export const endWorkflowRun = onD1(runs.endWorkflowRun);
export const reopenFailedWorkflowRun = onD1(runs.reopenFailedWorkflowRun);
export const listWorkflowSteps = onD1(runs.listWorkflowSteps);
export const findWorkflowStep = onD1(runs.findWorkflowStep);
export const deleteWorkflowStep = onD1(runs.deleteWorkflowStep);
export const listWaitDeadlines = onD1(runs.listWaitDeadlines);

export const upsertWorkflowWaiter = onD1(waiters.upsertWorkflowWaiter);
export const listWorkflowWaiters = onD1(waiters.listWorkflowWaiters);
export const takeWorkflowWaiter = onD1(waiters.takeWorkflowWaiter);
export const takeWaiterForWakeUp = onD1(waiters.takeWaiterForWakeUp);
export const restoreWaiter = onD1(waiters.restoreWaiter);
