// `context.waitForEvent` and `notify`: POST /v2/wait/{eventId} stores the run's waiter and
// publishes its timeout as a delayed step message of the run (hidden from the run's steps until
// its deadline: GET /v2/workflows/runs); POST /v2/notify/[{runId}/]{eventId} wakes every waiter
// with a step message carrying the event's data and deletes its timeout message
// (./workflow-notify.ts: done or refused, never half-done).
import { Hono } from "hono";
import { MAX_DURATION_MS } from "../../../core/common/duration";
import { headerMapIssues } from "../../../core/targets/header-map";
import { targetUrlProblem } from "../../../service/private-targets";
import {
  listWorkflowWaiters,
  upsertWorkflowWaiter,
  type WorkflowWaiterRow,
} from "../../../service/qstash/workflow-store";
import type { AppEnv } from "../../http/app-env";
import { badRequest } from "../errors";
import { parseQstashDurationMs } from "../headers";
import { prepareMessage } from "../messages/message-service";
import { storeMessages } from "../messages/publish";
import { cancelWaitTimeout, notifyWaiters } from "./workflow-notify";

/** The SDK's default wait. */
const DEFAULT_TIMEOUT_MS = 7 * 86_400_000;
export const WAIT_TIMEOUT_CALL_TYPE = "wait-timeout";

export const workflowEvents = new Hono<AppEnv>();

interface WaitRequest {
  url: string;
  timeoutMs: number;
  timeoutUrl: string;
  headers: Record<string, string>;
  step: Record<string, unknown>;
  runId: string;
}

function readWaitRequest(env: Env, value: unknown): WaitRequest {
  const body = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const errors: { header: string; message: string }[] = [];
  // QStash's shape, `{"Name": ["value"]}`, checked by the one header-map validator.
  const timeoutHeaders = headerMapIssues(body.timeoutHeaders ?? {}, { lists: true });
  for (const issue of timeoutHeaders.issues)
    errors.push({ header: ["timeoutHeaders", ...issue.path].join("."), message: issue.message });
  const headers = Object.fromEntries(
    Object.entries(timeoutHeaders.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const runId = headers["upstash-workflow-runid"] ?? "";
  if (typeof body.url !== "string") errors.push({ header: "url", message: "must be the workflow's URL" });
  if (runId === "" && timeoutHeaders.issues.length === 0)
    errors.push({ header: "timeoutHeaders", message: "must carry Upstash-Workflow-Runid" });
  if (typeof body.step !== "object" || body.step === null)
    errors.push({ header: "step", message: "must be the wait step" });
  if (body.timeoutUrl !== undefined && typeof body.timeoutUrl !== "string")
    errors.push({ header: "timeoutUrl", message: "must be the URL to call when the wait times out" });
  const timeout = body.timeout;
  const timeoutMs =
    timeout === undefined
      ? DEFAULT_TIMEOUT_MS
      : typeof timeout === "number"
        ? timeout * 1_000
        : typeof timeout === "string"
          ? parseQstashDurationMs(timeout)
          : null;
  if (timeoutMs === null || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_DURATION_MS)
    errors.push({
      header: "timeout",
      message: 'must be a duration such as "10s" or "7d" (at most 366 days)',
    });
  // The wake-up and the timeout are published later: their URLs are held to the target policy now.
  for (const field of ["url", "timeoutUrl"] as const) {
    const problem = typeof body[field] === "string" ? targetUrlProblem(env, body[field]) : null;
    if (problem !== null) errors.push({ header: field, message: problem });
  }
  if (errors.length > 0) throw badRequest(errors);
  const url = body.url as string;
  return {
    url,
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    timeoutUrl: typeof body.timeoutUrl === "string" ? body.timeoutUrl : url,
    headers,
    step: body.step as Record<string, unknown>,
    runId,
  };
}

workflowEvents.post("/wait/:eventId", async (c) => {
  const tenantId = c.get("tenantId");
  const eventId = c.req.param("eventId");
  const nowMs = Date.now();
  const wait = readWaitRequest(c.env, await c.req.json().catch(() => null));
  const timeoutStep = { ...wait.step, waitEventId: eventId, waitTimeout: true };
  const [messageId] = await publishStep(
    c.env,
    tenantId,
    wait.timeoutUrl,
    wait.headers,
    timeoutStep,
    nowMs,
    wait.timeoutMs,
  );
  const waiter: WorkflowWaiterRow = {
    tenant_id: tenantId,
    event_id: eventId,
    run_id: wait.runId,
    url: wait.url,
    headers: JSON.stringify(wait.headers),
    step: JSON.stringify(wait.step),
    timeout_message_id: messageId ?? "",
    deadline_ms: nowMs + wait.timeoutMs,
    created_at_ms: nowMs,
  };
  try {
    await upsertWorkflowWaiter(c.env, waiter);
  } catch (error) {
    // No waiter, no timeout: a timeout without its waiter would read as the wait's end at once.
    await cancelWaitTimeout(c.env, waiter, nowMs);
    throw error;
  }
  return c.json({});
});

workflowEvents.post("/notify/:eventId", async (c) =>
  c.json(await notify(c.env, c.get("tenantId"), c.req.param("eventId"), await c.req.text(), undefined)),
);
workflowEvents.post("/notify/:runId/:eventId", async (c) =>
  c.json(
    await notify(c.env, c.get("tenantId"), c.req.param("eventId"), await c.req.text(), c.req.param("runId")),
  ),
);

async function notify(env: Env, tenantId: string, eventId: string, data: string, runId: string | undefined) {
  const woken = await notifyWaiters(env, tenantId, eventId, data, runId);
  return woken.map(({ waiter, messageId }) => ({ waiter: waiterView(waiter), messageId }));
}

workflowEvents.get("/waiters/:eventId", async (c) => {
  const nowMs = Date.now();
  const waiters = await listWorkflowWaiters(c.env, c.get("tenantId"), c.req.param("eventId"));
  return c.json(waiters.filter((waiter) => waiter.deadline_ms > nowMs).map(waiterView));
});

function waiterView(waiter: WorkflowWaiterRow) {
  const headers = JSON.parse(waiter.headers) as Record<string, string>;
  return {
    url: waiter.url,
    deadline: Math.floor(waiter.deadline_ms / 1_000),
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    timeoutUrl: waiter.url,
    timeoutHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
  };
}

/** Publishes a step message of the run as the SDK would; a delayed one is a wait's timeout. */
async function publishStep(
  env: Env,
  tenantId: string,
  url: string,
  headers: Record<string, string>,
  step: object,
  nowMs: number,
  delayMs: number,
): Promise<string[]> {
  const request = new Headers(headers);
  request.set("upstash-workflow-calltype", "step");
  if (delayMs > 0) request.set("upstash-delay", `${delayMs}ms`);
  const prepared = await prepareMessage({
    env,
    tenantId,
    destination: url,
    headers: request,
    body: new TextEncoder().encode(JSON.stringify(step)),
    nowMs,
  });
  if (delayMs > 0 && prepared.kind === "new" && prepared.workflow !== undefined) {
    prepared.workflow.step.callType = WAIT_TIMEOUT_CALL_TYPE;
  }
  const answers = await storeMessages(env, [prepared], { tenantId, nowMs });
  return answers.map((answer) => answer.messageId);
}
