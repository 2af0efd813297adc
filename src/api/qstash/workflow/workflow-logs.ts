// GET /v2/workflows/events (the SDK's `Client.logs`): the tenant's workflow runs, newest first,
// each with the steps it has stored so far, grouped as the SDK shows them. Filters: the run's
// id, state and URL; any other filter is refused, naming it, rather than ignored.
import { Hono } from "hono";
import {
  listWorkflowRuns,
  listWorkflowSteps,
  type WorkflowRunRow,
  type WorkflowStepRow,
} from "../../../service/qstash/workflow-store";
import type { AppEnv } from "../../http/app-env";
import { badRequest } from "../errors";

const DEFAULT_COUNT = 10;
const MAX_COUNT = 100;
const FILTERS = ["groupBy", "workflowRunId", "state", "workflowUrl"] as const;
const SERVED = new Set<string>(["cursor", "count", ...FILTERS]);

export const workflowLogs = new Hono<AppEnv>();

workflowLogs.get("/", async (c) => {
  const query = new URL(c.req.url).searchParams;
  const unknown = [...new Set(query.keys())].filter((name) => !SERVED.has(name));
  const count = Number(query.get("count") ?? DEFAULT_COUNT);
  const cursor = query.get("cursor");
  const errors = unknown.map((name) => ({
    header: name,
    message: "is not a filter edgecron serves for logs",
  }));
  // An empty filter selects nothing or everything, never what was meant: refused, naming it.
  for (const name of FILTERS)
    if (query.getAll(name).some((value) => value === ""))
      errors.push({ header: name, message: "must not be empty" });
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    errors.push({ header: "count", message: `must be an integer from 1 to ${MAX_COUNT}` });
  if (cursor !== null && cursor !== "" && !/^\d{1,15}$/.test(cursor))
    errors.push({ header: "cursor", message: "must be a cursor this route answered" });
  if (errors.length > 0) throw badRequest(errors);
  const tenantId = c.get("tenantId");
  const wanted = (run: WorkflowRunRow) =>
    (query.get("workflowRunId") ?? run.run_id) === run.run_id &&
    (query.get("state") ?? run.state) === run.state &&
    (query.get("workflowUrl") ?? run.url) === run.url;
  // Filters are applied to a window of recent runs; the cursor continues before its last one.
  const window = await listWorkflowRuns(c.env, tenantId, {
    beforeMs: cursor ? Number(cursor) : undefined,
    limit: 1_000,
  });
  const runs = window.filter(wanted).slice(0, count);
  const views = await Promise.all(
    runs.map(async (run) => runView(run, await listWorkflowSteps(c.env, tenantId, run.run_id))),
  );
  const last = runs.at(-1);
  return c.json({ cursor: runs.length === count && last ? String(last.created_at_ms) : "", runs: views });
});

function runView(run: WorkflowRunRow, steps: readonly WorkflowStepRow[]) {
  return {
    workflowRunId: run.run_id,
    workflowUrl: run.url,
    workflowState: run.state,
    workflowRunCreatedAt: run.created_at_ms,
    ...(run.state === "RUN_STARTED" ? {} : { workflowRunCompletedAt: run.updated_at_ms }),
    ...(run.result === null ? {} : { workflowRunResponse: run.result }),
    steps: steps.map((step) => ({ type: "sequential", steps: [stepView(step)] })),
  };
}

function stepView(row: WorkflowStepRow) {
  const step = decodedStep(row);
  return {
    stepId: step.stepId ?? 0,
    stepName: step.stepName ?? "init",
    stepType: step.stepType ?? "Initial",
    callType: row.call_type,
    messageId: row.message_id,
    out: step.out,
    retries: 0,
    concurrent: step.concurrent ?? 1,
    state: "STEP_SUCCESS",
    createdAt: row.created_at_ms,
  };
}

interface StoredStep {
  stepId?: number;
  stepName?: string;
  stepType?: string;
  out?: unknown;
  concurrent?: number;
}

/** A stored step's JSON; the run's first entry is its initial body, shown as the `init` step. */
function decodedStep(row: WorkflowStepRow): StoredStep {
  const text = new TextDecoder().decode(Uint8Array.from(atob(row.body_base64), (char) => char.charCodeAt(0)));
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "stepName" in parsed) return parsed as StoredStep;
  } catch {
    // Not a step: the run's initial body, which may be any text.
  }
  return { out: text };
}
