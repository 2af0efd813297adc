// A /v2 publish that is a step of an Upstash Workflow run (it carries `Upstash-Workflow-RunId`):
// the SDK publishes each step's result to its own endpoint, and the server keeps the run's list
// of steps, which every delivery of the run reads back (the SDK asks for `LazyFetch`: the body
// is delivered empty and the SDK fetches GET /v2/workflows/runs/{runId}). The run's first
// message carries its delivery settings; every later message of the run gets them here, so the
// one header reader (../headers.ts) applies them as if the SDK had sent them again.
import { base64OfBytes } from "../../../core/common/encoding";
import {
  findWorkflowRun,
  type NewWorkflowRun,
  type NewWorkflowStep,
  recordWorkflowSteps,
} from "../../../service/qstash/workflow-store";
import { EdgecronError } from "../../http/problem";
import { notFound } from "../errors";

/**
 * The most a step message's body may hold. The run keeps it base64 in one D1 row, and a D1 row
 * holds at most 2,000,000 bytes (developers.cloudflare.com/d1/platform/limits): 1,400,000 bytes
 * are 1,866,668 in base64, which leaves room for the row's other columns.
 */
export const MAX_WORKFLOW_STEP_BYTES = 1_400_000;

/** The protocol version the SDK checks on every delivery of a run. */
export const WORKFLOW_SDK_VERSION = "1";
const RUN_ID_HEADER = "upstash-workflow-runid";
const CALL_TYPE_HEADER = "upstash-workflow-calltype";

/** The first message's headers that every later message of the run inherits. */
function isRunSetting(name: string): boolean {
  return (
    name === "upstash-retries" ||
    name === "upstash-retry-delay" ||
    name === "upstash-flow-control-key" ||
    name === "upstash-flow-control-value" ||
    name === "upstash-failure-callback" ||
    name.startsWith("upstash-failure-callback-")
  );
}

/** How a workflow message is published: rewritten headers and body, and what to record. */
export interface WorkflowMessagePlan {
  headers: Headers;
  body: Uint8Array;
  run: NewWorkflowRun | null;
  step: Omit<NewWorkflowStep, "messageId">;
}

/** What a stored workflow message records beside its job. */
export interface WorkflowRecord {
  run: NewWorkflowRun | null;
  step: NewWorkflowStep;
}

/**
 * The plan of a workflow step message, or null for any other message (a `context.call` to a
 * third party carries the run id too, but is an ordinary message whose callback is the step).
 * A later message of a run that is not running is refused: nothing would read its result.
 */
export async function planWorkflowMessage(
  env: Env,
  tenantId: string,
  destination: string,
  headers: Headers,
  body: Uint8Array,
): Promise<WorkflowMessagePlan | null> {
  const runId = headers.get(RUN_ID_HEADER)?.trim();
  const callType = headers.get(CALL_TYPE_HEADER)?.trim() || "step";
  if (!runId || callType !== "step") return null;
  if (body.byteLength > MAX_WORKFLOW_STEP_BYTES) throw stepTooLarge(body.byteLength);
  const rewritten = new Headers(headers);
  let run: NewWorkflowRun | null = null;
  if (headers.get("upstash-workflow-init")?.trim() === "true") {
    const settings: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (isRunSetting(name)) settings[name] = value;
    });
    run = { tenantId, runId, url: headers.get("upstash-workflow-url")?.trim() || destination, settings };
  } else {
    const stored = await findWorkflowRun(env, tenantId, runId);
    if (stored === null || stored.state !== "RUN_STARTED") {
      throw notFound(`workflow run ${runId} is not running`);
    }
    for (const [name, value] of Object.entries(JSON.parse(stored.settings) as Record<string, string>)) {
      if (!rewritten.has(name)) rewritten.set(name, value);
    }
  }
  rewritten.set(`upstash-forward-${RUN_ID_HEADER}`, runId);
  rewritten.set("upstash-forward-upstash-workflow-sdk-version", WORKFLOW_SDK_VERSION);
  return {
    headers: rewritten,
    body: new Uint8Array(0),
    run,
    step: { tenantId, runId, callType, bodyBase64: base64OfBytes(body) },
  };
}

/** A 413 naming the body: a step the run could not keep is refused before anything is stored. */
export function stepTooLarge(bytes: number, what = "a step's body"): EdgecronError {
  const message = `${what} is ${bytes} bytes; a workflow run keeps steps of at most ${MAX_WORKFLOW_STEP_BYTES} bytes`;
  return new EdgecronError("payload_too_large", `body: ${message}`, { errors: [{ path: "body", message }] });
}

/** The runs and steps of stored workflow messages, recorded before their jobs are inserted. */
export async function recordWorkflowMessages(
  env: Env,
  records: readonly (WorkflowRecord | undefined)[],
  nowMs: number,
): Promise<void> {
  const present = records.filter((record): record is WorkflowRecord => record !== undefined);
  if (present.length === 0) return;
  const runs = present.flatMap((record) => (record.run === null ? [] : [record.run]));
  await recordWorkflowSteps(
    env,
    runs,
    present.map((record) => record.step),
    nowMs,
  );
}
