// The workflow DLQ (the SDK's `client.dlq`): the dead letters of failed workflow runs, that is the
// /v2 dead letters whose message is a step of a run (its deliveries carry the run id). The SDK
// lists them with `GET /v2/dlq?source=workflow` and acts on them under /v2/workflows/dlq:
// resume (the failed step again, in the same run), restart (the run from its first message, as a
// new run), callback (its failure callback again) and delete.
import type { Context } from "hono";
import { Hono } from "hono";
import { deleteQstashDeadLetters } from "../../../service/qstash/dead-letters";
import { findWorkflowRun, type WorkflowRunRow } from "../../../service/qstash/workflow-store";
import type { AppEnv } from "../../http/app-env";
import { dlqMessageView, dlqPage } from "../dlq/dlq";
import { badRequest, notFound } from "../errors";
import { type BulkQuery, type BulkRoute, bulkQueryOf } from "../filters";
import type { HeaderError } from "../headers";
import { restartRun, resumeRun, retryFailureCallback, type WorkflowDlqEntry } from "./workflow-dlq-actions";

const RUN_ID_HEADER = "upstash-workflow-runid";

/** The filters every DLQ route shares; the workflow ones are read here. */
const WORKFLOW_DLQ_ROUTE: BulkRoute = {
  idName: "dlqIds",
  filters: ["fromDate", "toDate", "label", "flowControlKey", "url", "responseStatus"],
  pages: true,
  maxCount: 100,
  defaultCount: 100,
};
const RUN_FILTERS = ["workflowRunId", "workflowUrl", "workflowCreatedAt"] as const;

interface WorkflowDlqQuery {
  query: BulkQuery;
  matchesRun: (run: WorkflowRunRow) => boolean;
}

/**
 * Reads the query: the run filters here, the rest as every DLQ route does (400 naming each
 * unknown or empty one). `failureFunctionState` is refused: a failure callback's outcome is not
 * recorded, so no entry could be selected by it, and ignoring it would widen a bulk action.
 */
function workflowDlqQueryOf(url: URL, { listing }: { listing: boolean }): WorkflowDlqQuery {
  const shared = new URL(url);
  const errors: HeaderError[] = [];
  const wanted = new Map<string, string[]>();
  for (const name of RUN_FILTERS) {
    const values = url.searchParams.getAll(name);
    if (values.some((value) => value === "")) errors.push({ header: name, message: "must not be empty" });
    if (values.length > 0) wanted.set(name, values);
    shared.searchParams.delete(name);
  }
  if (url.searchParams.has("failureFunctionState"))
    errors.push({
      header: "failureFunctionState",
      message: "filter not served: a failure callback's outcome is not recorded",
    });
  shared.searchParams.delete("failureFunctionState");
  if (listing) shared.searchParams.delete("source");
  const created = wanted.get("workflowCreatedAt") ?? [];
  if (created.some((value) => !/^\d{1,15}$/.test(value)))
    errors.push({ header: "workflowCreatedAt", message: "must be a unix time in milliseconds" });
  let query: BulkQuery | null = null;
  try {
    query = bulkQueryOf(shared, WORKFLOW_DLQ_ROUTE);
  } catch (error) {
    const fields = (error as { errors?: { path: string; message: string }[] }).errors;
    if (fields === undefined) throw error;
    errors.push(...fields.map((field) => ({ header: field.path, message: field.message })));
  }
  if (errors.length > 0 || query === null) throw badRequest(errors);
  const oneOf = (name: string, value: string) => {
    const values = wanted.get(name);
    return values === undefined || values.includes(value);
  };
  return {
    query,
    matchesRun: (run) =>
      oneOf("workflowRunId", run.run_id) &&
      oneOf("workflowUrl", run.url) &&
      oneOf("workflowCreatedAt", String(run.created_at_ms)),
  };
}

/** One page of the workflow DLQ: the DLQ's page, kept to failed runs' messages the filters select. */
async function workflowDlqPage(
  env: Env,
  tenantId: string,
  { query, matchesRun }: WorkflowDlqQuery,
): Promise<{ entries: WorkflowDlqEntry[]; cursor: string | null }> {
  const { entries, cursor } = await dlqPage(env, tenantId, query);
  const selected: WorkflowDlqEntry[] = [];
  for (const entry of entries) {
    const runId =
      entry.job.spec.target.type === "http" ? entry.job.spec.target.headers?.[RUN_ID_HEADER] : undefined;
    if (runId === undefined) continue;
    const run = await findWorkflowRun(env, tenantId, runId);
    if (run !== null && matchesRun(run)) selected.push({ ...entry, run });
  }
  return { entries: selected, cursor };
}

/** A workflow DLQ entry as the SDK's `DLQMessage` reads it. */
function workflowDlqMessageView(entry: WorkflowDlqEntry) {
  return {
    ...dlqMessageView(entry),
    url: entry.run.url,
    callerIP: "",
    workflowRunId: entry.run.run_id,
    workflowCreatedAt: entry.run.created_at_ms,
    workflowUrl: entry.run.url,
  };
}

/** `GET /v2/dlq?source=workflow`, mounted before the DLQ's own list (see ../app.ts). */
export async function listWorkflowDlq(c: Context<AppEnv>): Promise<Response> {
  const query = workflowDlqQueryOf(new URL(c.req.url), { listing: true });
  const { entries, cursor } = await workflowDlqPage(c.env, c.get("tenantId"), query);
  return c.json({ messages: entries.map(workflowDlqMessageView), ...(cursor === null ? {} : { cursor }) });
}

export const workflowDlq = new Hono<AppEnv>();

/** Acts on each selected entry; a single named id that selects nothing is a 404. */
async function actOnEntries<T>(
  c: Context<AppEnv>,
  act: (entry: WorkflowDlqEntry) => Promise<T>,
): Promise<{ results: T[]; cursor: string | null }> {
  const query = workflowDlqQueryOf(new URL(c.req.url), { listing: false });
  const { entries, cursor } = await workflowDlqPage(c.env, c.get("tenantId"), query);
  if (query.query.ids.length === 1 && entries.length === 0)
    throw notFound(`workflow dlq message ${query.query.ids[0]} not found`);
  const results: T[] = [];
  for (const entry of entries) results.push(await act(entry));
  return { results, cursor };
}

workflowDlq.post("/resume", async (c) => {
  const { results, cursor } = await actOnEntries(c, (entry) => resumeRun(c.env, entry));
  return c.json({ workflowRuns: results, cursor: cursor ?? "" });
});

workflowDlq.post("/restart", async (c) => {
  const options = c.req.raw.headers;
  const { results, cursor } = await actOnEntries(c, (entry) => restartRun(c.env, entry, options));
  return c.json({ workflowRuns: results, cursor: cursor ?? "" });
});

workflowDlq.post("/callback/:dlqId", async (c) => {
  const url = new URL(c.req.url);
  url.search = `?dlqIds=${encodeURIComponent(c.req.param("dlqId"))}`;
  const query = workflowDlqQueryOf(url, { listing: false });
  const { entries } = await workflowDlqPage(c.env, c.get("tenantId"), query);
  const [entry] = entries;
  if (entry === undefined) throw notFound(`workflow dlq message ${c.req.param("dlqId")} not found`);
  return c.json(await retryFailureCallback(c.env, entry));
});

workflowDlq.delete("/", async (c) => {
  const tenantId = c.get("tenantId");
  const { results, cursor } = await actOnEntries(c, async (entry) => entry.letter.id);
  const deleted = await deleteQstashDeadLetters(c.env, tenantId, results);
  return c.json({ deleted, ...(cursor === null ? {} : { cursor }) });
});
