// Calls to targets that are Cloudflare bindings of this deployment: a service binding (the same
// request an HTTP target gets, through the binding's fetch), a Workflow (one instance per
// instant) and a Queue (one message per attempt). No address, so no SSRF surface; which bindings
// a job may name is checked at create time (src/core/targets/targets.ts, TARGET_BINDINGS).
import type { BindingTarget, ServiceTarget } from "../core/jobs/job-spec";
import type { TargetOutcome } from "../core/runs/outcome";
import { type BindingDelivery, serviceTargetUrl, workflowInstanceId } from "../core/targets/targets";
import type { CallTargetInput, SendHttpCall } from "./target-input";

type BindingCallInput = CallTargetInput & { target: BindingTarget };

// The parts of Cloudflare's Fetcher, Workflow and Queue bindings we call: stated here so this
// module type-checks wherever it is imported (the Node-side tools have no Workers globals).
interface ServiceBinding {
  fetch(request: Request): Promise<Response>;
}
interface WorkflowBinding {
  create(options: { id: string; params: unknown }): Promise<unknown>;
  get(id: string): Promise<unknown>;
}
interface QueueBinding {
  send(body: unknown, options: { contentType: "json" }): Promise<unknown>;
}

/**
 * Calls a binding target once and classifies the result, never throwing. A binding the
 * deployment no longer has (or of another kind) is permanent: retrying cannot add it. A failed
 * Workflow create or queue send is retryable, as is a call that outlives the job's timeout.
 */
export async function callBindingTarget(
  input: BindingCallInput,
  sendHttp: SendHttpCall,
): Promise<TargetOutcome> {
  const { target } = input;
  const binding = input.bindings?.[target.binding];
  switch (target.type) {
    case "service":
      return isFetcher(binding)
        ? callService({ ...input, target }, binding, sendHttp)
        : missing(target, "a service binding");
    case "workflow":
      return isWorkflow(binding)
        ? timed(input, () => createInstance(binding, input))
        : missing(target, "a Workflow binding");
    case "queue":
      return isQueue(binding)
        ? timed(input, () => sendMessage(binding, input))
        : missing(target, "a Queue binding");
  }
}

function callService(
  input: CallTargetInput & { target: ServiceTarget },
  fetcher: ServiceBinding,
  sendHttp: SendHttpCall,
): Promise<TargetOutcome> {
  const { target } = input;
  const httpTarget = {
    type: "http" as const,
    url: serviceTargetUrl(target),
    method: target.method,
    headers: target.headers,
    body: target.body,
  };
  // `fetch` on a binding needs its receiver: pass a bound call, not the method.
  return sendHttp({ ...input, target: httpTarget }, (request) => fetcher.fetch(request as Request));
}

/** What the instance (event.payload) or the consumer (message.body) receives. */
function deliveryOf(input: CallTargetInput): BindingDelivery {
  return {
    idempotency_key: input.idempotencyKey,
    job_id: input.jobId,
    run_id: input.runId,
    scheduled_at: new Date(input.scheduledAtMs).toISOString(),
    attempt: input.attempt,
    body: input.target.body ?? null,
  };
}

/**
 * One instance per instant: the id comes from the idempotency key, so a retry, a redelivered
 * message or a lease re-send names the instance an earlier attempt created. Workflows refuses
 * an id that exists; then the instance is ours and the call counts as done.
 */
async function createInstance(workflow: WorkflowBinding, input: CallTargetInput): Promise<string> {
  const id = workflowInstanceId(input.idempotencyKey);
  try {
    await workflow.create({ id, params: deliveryOf(input) });
    return `workflow instance ${id} created`;
  } catch (error) {
    if (await instanceExists(workflow, id)) return `workflow instance ${id} already existed`;
    throw error;
  }
}

async function instanceExists(workflow: WorkflowBinding, id: string): Promise<boolean> {
  try {
    await workflow.get(id);
    return true;
  } catch {
    return false;
  }
}

/** Queues cannot deduplicate: a consumer that must act once keys on `idempotency_key`. */
async function sendMessage(queue: QueueBinding, input: CallTargetInput): Promise<string> {
  await queue.send(deliveryOf(input), { contentType: "json" });
  return "queue message sent";
}

/** Runs a binding call under the job's timeout: success with its note, else a retryable failure. */
async function timed(input: CallTargetInput, call: () => Promise<string>): Promise<TargetOutcome> {
  const clockMs = input.clockMs ?? Date.now;
  const startedMs = clockMs();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${input.timeoutMs} ms`)), input.timeoutMs);
  });
  try {
    const detail = await Promise.race([call(), timeout]);
    return { kind: "success", status: null, durationMs: clockMs() - startedMs, detail };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      kind: "retryable",
      status: null,
      error: `${input.target.type === "queue" ? "queue send" : "workflow create"} failed: ${message}`,
      retryAfterMs: null,
      durationMs: clockMs() - startedMs,
    };
  } finally {
    clearTimeout(timer);
  }
}

function missing(target: BindingTarget, kind: string): TargetOutcome {
  return {
    kind: "permanent",
    status: null,
    error: `binding ${target.binding} is not ${kind} in this deployment (see wrangler.toml)`,
    durationMs: 0,
  };
}

function hasMethods(value: unknown, ...names: string[]): boolean {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === "function");
}

// Service bindings are RPC stubs that answer every property name with a callable: they pass
// every shape check, which is why the kind comes from TARGET_BINDINGS, checked at create time.
function isFetcher(value: unknown): value is ServiceBinding {
  return hasMethods(value, "fetch");
}

function isWorkflow(value: unknown): value is WorkflowBinding {
  return hasMethods(value, "create", "get");
}

function isQueue(value: unknown): value is QueueBinding {
  return hasMethods(value, "send");
}
