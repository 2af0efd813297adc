// Every index on a shard's `runs` table is one more entry to move on every state change of a run,
// on the hot path of each run: each one is kept only for a reader, named here with its query (as
// the code runs it) and checked to be served by it. An index added without a reader, or a reader
// the planner no longer serves from its index, fails this test.

import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { placeJob, seedTenant, snapshot, spec, stubFor, targetUrl, uniqueJobId } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

/** Index -> its reader (file: function) and that reader's query. */
const READERS: Record<string, { reader: string; query: string }> = {
  // The primary key (run_id) of a rowid table.
  sqlite_autoindex_runs_1: {
    reader: "runs/run-store.ts: getRuns (claims, outcomes, give-backs)",
    query: "SELECT state FROM runs WHERE run_id IN (SELECT value FROM json_each(?1))",
  },
  // UNIQUE (job_id, scheduled_at_ms): one run per instant.
  sqlite_autoindex_runs_2: {
    reader: "runs/run-store.ts: instantTaken (triggers), history/reads.ts: historyRun",
    query: "SELECT EXISTS (SELECT 1 FROM runs WHERE job_id = ?1 AND scheduled_at_ms = ?2)",
  },
  runs_due: {
    reader: "wheel/fair-due-runs.ts: readDueRuns, wheel/due-times.ts: readDueTimes",
    query: "SELECT run_id FROM runs WHERE due_at_ms <= ?1 ORDER BY due_at_ms LIMIT 100",
  },
  runs_job_state: {
    reader: "runs/run-store.ts: countInFlight, pendingRunsOfJob; write-behind.ts: LIVE_RUN",
    query:
      "SELECT COUNT(*) FROM runs WHERE job_id = ?1 AND state IN ('SCHEDULED', 'ACQUIRED', 'DISPATCHED', 'RUNNING', 'RETRYING')",
  },
  runs_dlq: {
    reader: "runs/dead-letter-sends.ts: sendDeadLetters",
    query: "SELECT run_id FROM runs WHERE dlq_pending = 1 AND COALESCE(dlq_retry_at_ms, 0) <= ?1",
  },
  runs_waiting: {
    reader: "runs/attempt-outcomes.ts: releaseBuffered",
    query:
      "SELECT run_id FROM runs WHERE job_id = ?1 AND waiting = 'overlap' AND state = 'SCHEDULED' ORDER BY scheduled_at_ms LIMIT 1",
  },
  runs_terminal_age: {
    reader: "runs/run-timers.ts: pruneSettledRuns",
    query:
      "SELECT run_id FROM runs WHERE due_at_ms IS NULL AND waiting IS NULL AND dirty = 0 AND updated_at_ms < ?1 LIMIT 100",
  },
  runs_flush_now: {
    reader: "write-behind.ts: flushRuns (settled), wheel/due-times.ts (urgent)",
    query: "SELECT run_id, job_id FROM runs WHERE dirty = 1 AND due_at_ms IS NULL LIMIT 2000",
  },
  runs_flush_in_flight: {
    reader: "write-behind.ts: flushRuns (in flight), wheel/due-times.ts (settled_ms)",
    query:
      "SELECT run_id FROM runs WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED' AND updated_at_ms <= ?1 LIMIT 2000",
  },
  runs_flow_gate: {
    reader: "runs/run-timers.ts: endGateHolds, waitingAtGate",
    query: "SELECT run_id FROM runs WHERE flow_gate = ?1 AND state = 'SCHEDULED' AND due_at_ms > ?2",
  },
  runs_in_flight: {
    reader: "dispatch/budget.ts: inFlightByTenant, countInFlight (the dispatch window)",
    query: `SELECT tenant_id, COUNT(*) AS n FROM runs INDEXED BY runs_in_flight
      WHERE (state IN ('ACQUIRED', 'DISPATCHED') OR (state = 'RUNNING' AND accepted_at_ms IS NULL))
        AND due_at_ms > ?1 GROUP BY tenant_id`,
  },
  runs_tenant_priority_due: {
    reader: "wheel/fair-due-runs.ts: a tenant's due rows, the tenant walk, a tenant's first timer",
    query:
      "SELECT run_id FROM runs WHERE tenant_id = ?1 AND due_at_ms <= ?2 ORDER BY priority, due_at_ms LIMIT 10",
  },
  runs_slow_calls: {
    reader: "dispatch/budget.ts: slowCallsByTenant",
    query: `SELECT tenant_id, COUNT(*) AS n FROM runs INDEXED BY runs_slow_calls
      WHERE slow_since_ms IS NOT NULL AND state = 'RUNNING' AND accepted_at_ms IS NULL AND due_at_ms > ?1
      GROUP BY tenant_id`,
  },
};

describe("the indexes on a shard's runs", () => {
  beforeAll(() => seedTenant());

  it("are exactly those with a reader, and each reader's query is served by its index", async () => {
    const jobId = uniqueJobId("indexes");
    const jobSpec = spec({
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const { indexes, plans } = await inShardTables(stubFor(jobId), (sql, storage) => {
      const names = sql
        .exec<{ name: string }>("SELECT name FROM pragma_index_list('runs')")
        .toArray()
        .map((row) => row.name);
      // One binding for each ?N of the query (text or number alike: only the plan is read).
      const bindingsOf = (query: string) =>
        Array.from(
          { length: Math.max(0, ...[...query.matchAll(/\?(\d)/g)].map((m) => Number(m[1]))) },
          () => 1,
        );
      const planOf = (query: string) =>
        sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ...bindingsOf(query))
          .toArray()
          .map((row) => row.detail)
          .join("; ");
      return {
        indexes: names.sort(),
        plans: Object.fromEntries(Object.entries(READERS).map(([name, { query }]) => [name, planOf(query)])),
      };
    });
    expect(indexes).toEqual(Object.keys(READERS).sort());
    for (const [name, plan] of Object.entries(plans)) {
      expect(plan, `${name}, read by ${READERS[name]?.reader}`).toContain(name);
    }
  });
});
