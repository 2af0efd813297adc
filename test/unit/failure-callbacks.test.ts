// The failure callback's body (src/queue/qstash-callback-deliveries.ts): what the
// Upstash Workflow SDK reads from it (`handleFailure`: status, header, body, url, sourceBody,
// workflowRunId, workflowCreatedAt) comes from the run and the kept answer when they are known.
import { describe, expect, it } from "vitest";
import { qstashJobSchema } from "../../src/core/qstash/delivery";
import {
  type FailureCallbackExtras,
  failureCallbackDeliveries,
} from "../../src/queue/qstash-callback-deliveries";
import type { DeadLetterMessage } from "../../src/shard/protocol";

const RUN_HEADERS = { "upstash-workflow-runid": "wfr_1", "upstash-workflow-is-failure": "true" };

function letter(): DeadLetterMessage {
  return {
    kind: "dead_letter",
    run_id: "run_01",
    job_id: "job_step",
    tenant: "ten_1",
    shard: 0,
    scheduled_at: 1_700_000_000_000,
    attempt: 2,
    reason: "exhausted",
    last_error: 'target answered 500: {"error":"Error","message":"bro',
    target_status: 500,
    payload: {
      method: "POST",
      url: "https://app.example/wf",
      headers: { "upstash-workflow-runid": "wfr_1" },
      body: undefined,
    },
    on_failure: null,
    qstash: {
      delivery: qstashJobSchema.parse({
        failure_callback: "https://app.example/wf",
        failure_callback_headers: RUN_HEADERS,
      }),
      maxRetries: 1,
      jobCreatedAtMs: 1_700_000_000_500,
    },
  };
}

function bodyOf(extras: FailureCallbackExtras[]): Record<string, unknown> | undefined {
  const [delivery] = failureCallbackDeliveries([letter()], ["dlq_1"], extras);
  return delivery === undefined ? undefined : JSON.parse(delivery.body ?? "null");
}

describe("a workflow run's failure callback", () => {
  it("carries the run's initial payload, URL and creation time, and the kept answer", () => {
    const answer = { status: 500, headers: { "x-a": ["1"] }, bodyBase64: btoa('{"message":"broke"}') };
    const workflow = {
      initialBodyBase64: btoa('{"order":7}'),
      url: "https://app.example/wf",
      createdAtMs: 42,
    };
    expect(bodyOf([{ answer, workflow }])).toMatchObject({
      status: 500,
      header: { "x-a": ["1"] },
      body: answer.bodyBase64,
      url: "https://app.example/wf",
      sourceBody: btoa('{"order":7}'),
      workflowRunId: "wfr_1",
      workflowCreatedAt: 42,
      dlqId: "dlq_1",
    });
  });

  it("falls back to what the dead letter kept when the answer and the run are unknown", () => {
    expect(bodyOf([])).toMatchObject({
      status: 500,
      header: {},
      body: btoa('{"error":"Error","message":"bro'),
      workflowRunId: "wfr_1",
      workflowCreatedAt: 1_700_000_000_500,
    });
  });

  it("is not sent for a letter of a run another letter already failed", () => {
    expect(failureCallbackDeliveries([letter()], ["dlq_1"], [{ skip: true }])).toEqual([]);
  });
});
