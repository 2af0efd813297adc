// The input of one target call, shared by the HTTP and the binding calls (no module cycle).

import type { HttpTarget, JobTarget } from "../core/jobs/job-spec";
import type { QstashDelivery } from "../core/qstash/delivery";
import type { CompletionMode } from "../core/runs/long-running";
import type { TargetOutcome } from "../core/runs/outcome";
import type { ResolveHost } from "../core/targets/ssrf";
import type { AllowedTarget } from "../core/targets/target-policy";

export interface CallTargetInput {
  target: JobTarget;
  runId: string;
  jobId: string;
  scheduledAtMs: number;
  attempt: number;
  /** `{job_id}:{scheduled_at}`: the same for every attempt of one instant. */
  idempotencyKey: string;
  /** The tenant's active signing secrets, current first. Empty: no signature header. */
  secrets: readonly string[];
  timeoutMs: number;
  /** Local development only: lets targets on loopback/private addresses through. */
  allowPrivate: boolean;
  /** Private hosts the production policy lets through by name (PRIVATE_TARGET_ALLOW_LIST). */
  allowedTargets?: readonly AllowedTarget[];
  /** Resolves the target's name before the call (TARGET_DNS_RESOLVER); unset: names are not resolved. */
  resolveHost?: ResolveHost;
  /** The call's start time: the signature timestamp `t`, and the base for a Retry-After date. */
  nowMs: number;
  /** Retry classification: 4xx statuses the job wants retried (`retry.retry_on_status`). */
  retryOnStatus?: readonly number[];
  /** Sent as `Edgecron-Run-Token`: what a long-running target reports back with. */
  runToken?: string;
  /** The attempt's W3C `traceparent` (src/core/trace/trace-ids.ts): the target continues the run's trace. */
  traceparent?: string;
  /** The job's completion mode: whether a 2xx may only start the work. Default `response`. */
  completion?: CompletionMode;
  /** Set for jobs created through /v2: signed with `Upstash-Signature` (current secret) and headed as QStash does. */
  qstash?: QstashDelivery;
  /** The Worker's env: where binding targets (service, workflow, queue) are looked up. */
  bindings?: Readonly<Record<string, unknown>>;
  /** Defaults to the global fetch; tests route it to an in-process handler. */
  fetchImpl?: typeof fetch;
  /** Measures the call's duration; defaults to Date.now (advances across I/O in Workers). */
  clockMs?: () => number;
}

export type HttpCallInput = CallTargetInput & { target: HttpTarget };

/** Sends an HTTP-shaped call through `fetchImpl` (target-call.ts `exchange`), never throwing. */
export type SendHttpCall = (input: HttpCallInput, fetchImpl: typeof fetch) => Promise<TargetOutcome>;
