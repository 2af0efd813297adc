// Debounced triggers through the API and the job's real shard: triggers inside the period fold
// into one run (leading: the first one's, called at once; trailing: one call `period` after the
// last trigger), every answer names the run, and the run counts what was folded into it.

import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { shardStub, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

interface Job {
  id: string;
  shard: number;
  debounce: unknown;
}
interface Trigger {
  run_id: string;
  scheduled_at: string;
  folded: boolean;
  fire_at: string;
}
interface Run {
  id: string;
  state: string;
  kind: string;
  triggers_folded: number;
}

async function debouncedJob(key: string, path: string, debounce: Record<string, unknown>) {
  const job = await api<Job>("POST", "/v1/jobs", {
    token: key,
    body: {
      name: `debounce-${path}`,
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: targetUrl(path) },
      debounce,
    },
  });
  expect(job.status, JSON.stringify(job.body)).toBe(201);
  return job.body;
}

async function trigger(key: string, jobId: string, body?: unknown) {
  const res = await api<Trigger>("POST", `/v1/jobs/${jobId}/trigger`, { token: key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

async function settled(key: string, runId: string): Promise<Run> {
  return vi.waitFor(async () => {
    const res = await api<Run>("GET", `/v1/runs/${runId}`, { token: key });
    expect(res.body.state).toBe("SUCCEEDED");
    return res.body;
  }, WAIT);
}

describe("debounced triggers", () => {
  it("leading: the first trigger runs now, the rest of the period folds into its run", async () => {
    const t = await createTenantWithKey();
    const job = await debouncedJob(t.key, "/ok/debounce-leading", { period: "10m", mode: "leading" });
    expect(job.debounce).toEqual({ period: "10m", mode: "leading" });
    const first = await trigger(t.key, job.id);
    expect(first).toMatchObject({ folded: false, fire_at: first.scheduled_at });
    await settled(t.key, first.run_id);
    // Folded after the run already went: it stays one run and counts them.
    const later = [await trigger(t.key, job.id), await trigger(t.key, job.id)];
    for (const answer of later) {
      expect(answer).toMatchObject({ run_id: first.run_id, folded: true, scheduled_at: first.scheduled_at });
    }
    const run = await settled(t.key, first.run_id);
    expect(run.triggers_folded).toBe(2);
    expect(await targetCalls("/ok/debounce-leading")).toHaveLength(1);
    const runs = await api<{ data: Run[] }>("GET", `/v1/jobs/${job.id}/runs`, { token: t.key });
    expect(runs.body.data.map((listed) => [listed.id, listed.triggers_folded])).toEqual([[first.run_id, 2]]);
  });

  it("trailing: one run, period after the last trigger; each fold moves it; keys fold apart", async () => {
    const t = await createTenantWithKey();
    const job = await debouncedJob(t.key, "/ok/debounce-trailing", { period: "2s", mode: "trailing" });
    const answers = [
      await trigger(t.key, job.id),
      await trigger(t.key, job.id),
      await trigger(t.key, job.id),
    ];
    const [first] = answers;
    expect(answers.map((answer) => [answer.run_id, answer.folded])).toEqual([
      [first?.run_id, false],
      [first?.run_id, true],
      [first?.run_id, true],
    ]);
    const fires = answers.map((answer) => Date.parse(answer.fire_at));
    expect(fires[0]).toBe(Date.parse(first?.scheduled_at ?? "") + 2_000);
    expect(fires[2]).toBeGreaterThanOrEqual(fires[1] ?? 0);
    expect(fires[1]).toBeGreaterThanOrEqual(fires[0] ?? 0);
    // Another key is another window, so another run.
    const other = await trigger(t.key, job.id, { debounce_key: "tenant-7" });
    expect(other.folded).toBe(false);
    expect(other.run_id).not.toBe(first?.run_id);
    // Nothing is called before the last fire time; then once per window.
    expect(await targetCalls("/ok/debounce-trailing")).toHaveLength(0);
    const run = await settled(t.key, first?.run_id ?? "");
    expect(run).toMatchObject({ kind: "trigger", triggers_folded: 2 });
    await settled(t.key, other.run_id);
    const calls = await targetCalls("/ok/debounce-trailing");
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.receivedAtMs).toBeGreaterThanOrEqual(fires[0] ?? 0);
    // After the window's run went out, a trigger starts a new window.
    const next = await trigger(t.key, job.id);
    expect(next.folded).toBe(false);
    expect(next.run_id).not.toBe(first?.run_id);
    await settled(t.key, next.run_id);
  });

  it("keeps the window in the shard's storage (what a restarted shard reads)", async () => {
    const t = await createTenantWithKey();
    const job = await debouncedJob(t.key, "/ok/debounce-stored", {
      key: "acct",
      period: "1h",
      mode: "trailing",
    });
    const answer = await trigger(t.key, job.id);
    const stored = await inShardTables(shardStub(job.shard), (sql, _storage) =>
      sql
        .exec("SELECT debounce_key, run_id, fire_at_ms FROM debounce_windows WHERE job_id = ?", job.id)
        .toArray(),
    );
    expect(stored).toEqual([
      { debounce_key: "acct", run_id: answer.run_id, fire_at_ms: Date.parse(answer.fire_at) },
    ]);
    await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key });
  });

  it("refuses a bad debounce, and a debounce_key for a job without one, naming the fields", async () => {
    const t = await createTenantWithKey();
    const bad = await api<{ code: string; errors: { path: string }[] }>("POST", "/v1/jobs", {
      token: t.key,
      body: {
        name: "bad-debounce",
        schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
        target: { url: targetUrl("/ok/never") },
        debounce: { period: "500ms", mode: "sometimes", key: "no spaces" },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error) => error.path).sort()).toEqual([
      "debounce.key",
      "debounce.mode",
      "debounce.period",
    ]);
    const waits = await api<{ errors: { path: string }[] }>("POST", "/v1/jobs", {
      token: t.key,
      body: {
        name: "bad-wait",
        schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
        target: { url: targetUrl("/ok/never") },
        debounce: { period: "1m", mode: "trailing", max_wait: "30s" },
      },
    });
    expect(waits.status).toBe(400);
    expect(waits.body.errors.map((error) => error.path)).toEqual(["debounce.max_wait"]);
    const plain = await api<{ id: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: {
        name: "plain",
        schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
        target: { url: targetUrl("/ok/never") },
      },
    });
    const refused = await api<{ code: string; errors: { path: string }[] }>(
      "POST",
      `/v1/jobs/${plain.body.id}/trigger`,
      { token: t.key, body: { debounce_key: "x" } },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error) => error.path)).toEqual(["debounce_key"]);
    const shardRuns = await api<{ data: unknown[] }>("GET", `/v1/jobs/${plain.body.id}/runs`, {
      token: t.key,
    });
    expect(shardRuns.body.data).toEqual([]);
  });
});
