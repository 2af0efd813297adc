import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import { deadLetterPayload, describeTarget } from "../../src/core/jobs/target-payload";
import {
  bindingTargetProblem,
  parseTargetBindings,
  serviceTargetUrl,
  WORKFLOW_INSTANCE_ID,
  workflowInstanceId,
} from "../../src/core/targets/targets";
import { callBindingTarget } from "../../src/delivery/binding-targets";
import type { CallTargetInput } from "../../src/delivery/target-input";

describe("parseTargetBindings", () => {
  it("reads names, kinds and tenant limits, and ignores what it cannot trust", () => {
    const { allowed, ignored } = parseTargetBindings(
      " BILLING:service ,REPORTS:workflow=ten_A|ten_B, EVENTS:queue, DB:queue, lower:service, X:cron, ",
    );
    expect([...allowed.keys()]).toEqual(["BILLING", "REPORTS", "EVENTS"]);
    expect(allowed.get("BILLING")).toEqual({ kind: "service", tenants: null });
    expect([...(allowed.get("REPORTS")?.tenants ?? [])]).toEqual(["ten_A", "ten_B"]);
    expect(ignored).toEqual(["DB:queue", "lower:service", "X:cron"]);
  });

  it("never allows a job database or a dispatch queue, whatever their number", () => {
    const { allowed, ignored } = parseTargetBindings(
      "DB_JOBS_0:queue, DB_JOBS_7:service, DISPATCH_QUEUE:queue, DISPATCH_QUEUE_1:queue, DISPATCH_QUEUE_44:queue, DB_JOBSX:service",
    );
    expect([...allowed.keys()]).toEqual(["DB_JOBSX"]);
    expect(ignored).toHaveLength(5);
  });

  it("allows nothing when unset or empty", () => {
    expect(parseTargetBindings(undefined).allowed.size).toBe(0);
    expect(parseTargetBindings("").allowed.size).toBe(0);
  });
});

describe("bindingTargetProblem", () => {
  const { allowed } = parseTargetBindings("BILLING:service, REPORTS:workflow=ten_A");

  it.each([
    [{ type: "service", binding: "BILLING" }, "ten_Z", null],
    [{ type: "workflow", binding: "REPORTS" }, "ten_A", null],
    [{ type: "workflow", binding: "REPORTS" }, "ten_Z", "is not a binding this deployment allows"],
    [{ type: "queue", binding: "NOPE" }, "ten_A", "is not a binding this deployment allows"],
    [{ type: "queue", binding: "BILLING" }, "ten_A", "is a service binding, not a queue binding"],
  ] as const)("%o for %s", (target, tenantId, expected) => {
    const problem = bindingTargetProblem(allowed, target, tenantId);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("workflowInstanceId", () => {
  it.each([
    ["job_01JD3YQ8ZP:2026-01-01T00:00:00.000Z", "job_01JD3YQ8ZP-2026-01-01T00-00-00-000Z"],
    ["-leading:dash", "_-leading-dash"],
    ["x".repeat(150), "x".repeat(100)],
  ])("turns %s into a valid, deterministic id", (key, id) => {
    expect(workflowInstanceId(key)).toBe(id);
    expect(workflowInstanceId(key)).toMatch(WORKFLOW_INSTANCE_ID);
  });
});

describe("job bodies with binding targets", () => {
  const base = { name: "n", schedule: { type: "once", at: "2099-01-01T00:00:00Z" } };

  it("fills a service target's defaults and keeps HTTP the default type", () => {
    const service = jobCreateSchema.parse({ ...base, target: { type: "service", binding: "BILLING" } });
    expect(service.target).toEqual({
      type: "service",
      binding: "BILLING",
      path: "/",
      method: "POST",
      headers: {},
    });
    const http = jobCreateSchema.parse({ ...base, target: { url: "https://example.com" } });
    expect(http.target.type).toBe("http");
  });

  it("names every bad field of a binding target and refuses an unknown type", () => {
    const bad = jobCreateSchema.safeParse({
      ...base,
      target: { type: "service", binding: "billing", path: "hook", headers: { Host: "x" } },
    });
    expect(bad.success || bad.error.issues.map((issue) => issue.path.join("."))).toEqual([
      "target.binding",
      "target.path",
      "target.headers.Host",
    ]);
    const unknown = jobCreateSchema.safeParse({ ...base, target: { type: "email", binding: "X" } });
    expect(unknown.success || unknown.error.issues[0]?.message).toContain('"service", "workflow" or "queue"');
    const extra = jobCreateSchema.safeParse({
      ...base,
      target: { type: "queue", binding: "X", url: "https://a" },
    });
    expect(extra.success).toBe(false);
  });
});

describe("describeTarget and deadLetterPayload", () => {
  it("name each kind for people and dead letters", () => {
    const service = { type: "service", binding: "BILLING", path: "/h", method: "PUT", headers: {} } as const;
    expect(describeTarget(service)).toBe("service BILLING: PUT /h");
    expect(describeTarget({ type: "queue", binding: "EVENTS" })).toBe("queue EVENTS");
    expect(deadLetterPayload(service).url).toBe(serviceTargetUrl(service));
    expect(deadLetterPayload({ type: "workflow", binding: "FLOW", body: 1 })).toEqual({
      method: "CREATE",
      url: "workflow://FLOW",
      headers: {},
      body: 1,
    });
  });
});

describe("callBindingTarget", () => {
  function input(
    target: CallTargetInput["target"],
    bindings: Record<string, unknown>,
  ): CallTargetInput & {
    target: Exclude<CallTargetInput["target"], { type: "http" }>;
  } {
    if (target.type === "http") throw new Error("binding targets only");
    return {
      target,
      runId: "run_1",
      jobId: "job_1",
      scheduledAtMs: Date.UTC(2026, 0, 1),
      attempt: 2,
      idempotencyKey: "job_1:2026-01-01T00:00:00.000Z",
      secrets: [],
      timeoutMs: 1_000,
      allowPrivate: false,
      nowMs: Date.UTC(2026, 0, 1),
      bindings,
    };
  }
  const noHttp = () => Promise.reject(new Error("no HTTP call expected"));

  // A stand-in for Cloudflare's production Workflows, which throws on an id that exists (the
  // local runtime silently returns the existing instance instead).
  function productionLikeWorkflow(existing: Set<string>) {
    return {
      create: async ({ id }: { id: string }) => {
        if (existing.has(id)) throw new Error("instance.already_exists");
        existing.add(id);
        return { id };
      },
      get: async (id: string) => {
        if (!existing.has(id)) throw new Error("instance.not_found");
        return { id };
      },
    };
  }

  it("counts a Workflow create refused for an existing id as done", async () => {
    const ids = new Set<string>();
    const flow = productionLikeWorkflow(ids);
    const call = () =>
      callBindingTarget(input({ type: "workflow", binding: "FLOW" }, { FLOW: flow }), noHttp);
    expect(await call()).toMatchObject({ kind: "success", detail: expect.stringContaining("created") });
    expect(await call()).toMatchObject({
      kind: "success",
      detail: expect.stringContaining("already existed"),
    });
    expect([...ids]).toEqual(["job_1-2026-01-01T00-00-00-000Z"]);
  });

  it("retries a Workflow create that failed for another reason", async () => {
    const flow = {
      create: () => Promise.reject(new Error("overloaded")),
      get: () => Promise.reject(new Error("no")),
    };
    const outcome = await callBindingTarget(
      input({ type: "workflow", binding: "FLOW" }, { FLOW: flow }),
      noHttp,
    );
    expect(outcome).toMatchObject({ kind: "retryable", error: "workflow create failed: overloaded" });
  });

  it("fails for good when the binding is gone, and retries a send that outlives the timeout", async () => {
    const gone = await callBindingTarget(input({ type: "queue", binding: "EVENTS" }, {}), noHttp);
    expect(gone).toMatchObject({
      kind: "permanent",
      error: expect.stringContaining("EVENTS is not a Queue binding"),
    });
    const stuck = { send: () => new Promise(() => {}) };
    const late = await callBindingTarget(
      { ...input({ type: "queue", binding: "EVENTS" }, { EVENTS: stuck }), timeoutMs: 20 },
      noHttp,
    );
    expect(late).toMatchObject({ kind: "retryable", error: "queue send failed: timed out after 20 ms" });
  });
});
