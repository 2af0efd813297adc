// Debounced triggers through `wrangler dev`: a burst of concurrent triggers of one key folds into
// one run, called once, `period` after the last of them; every answer names that run.
import { describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

const scheduler = useScheduler({ tenant: "e2e-debounce" });

interface Trigger {
  run_id: string;
  folded: boolean;
  fire_at: string;
}

describe("e2e: debounced triggers", () => {
  it("folds a burst of concurrent triggers into one run and one call", async () => {
    const { api, target } = scheduler;
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      name: "burst",
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: `${target.url}/burst`, method: "POST" },
      debounce: { period: "2s", mode: "trailing", max_wait: "1m" },
    });
    expect(job.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api<Trigger>("POST", `/v1/jobs/${job.body.id}/trigger`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    const runIds = new Set(answers.map((answer) => answer.body.run_id));
    expect(runIds.size).toBe(1);
    expect(answers.filter((answer) => !answer.body.folded)).toHaveLength(1);
    const [runId] = runIds;
    const lastFireMs = Math.max(...answers.map((answer) => Date.parse(answer.body.fire_at)));
    const run = await waitUntil(
      async () => {
        const current = await api<{ state: string; triggers_folded: number }>("GET", `/v1/runs/${runId}`);
        return current.body.state === "SUCCEEDED" ? current.body : undefined;
      },
      { what: "the folded run to succeed" },
    );
    expect(run.triggers_folded).toBe(19);
    const calls = target.calls.filter((call) => call.path === "/burst");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.receivedAtMs).toBeGreaterThanOrEqual(lastFireMs);
  });
});
