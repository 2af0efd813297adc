// The due runs a tick reads, in fair order across tenants (src/core/fair-share.ts). The tick acts
// on them in this order, each tenant's share of the dispatch window (./budget.ts) spent on its
// first ones: a tenant with one run due has it read, and sent, in the same tick as another
// tenant's backlog.
import { fairOrder, roundRobin, sharePerTenant } from "../../../src/core/fair-share";
import { JOB_PRIORITY_HIGHEST, JOB_PRIORITY_LOWEST } from "../../../src/core/job-spec";
import type { RunRow } from "../runs/run-store";

/**
 * What the tick decides on, per due row: its tenant's share, whether it is a send or only a state
 * change. The whole row is read afterwards for the rows acted on (tick.ts): under backpressure
 * most due rows are left waiting, and reading their every column on each pass was the largest
 * part of a backpressured pass.
 */
export type DueRow = Pick<RunRow, "run_id" | "job_id" | "tenant_id" | "state" | "dispatch_count">;
const DUE_COLUMNS = "run_id, job_id, tenant_id, state, dispatch_count";

/** Every job priority, highest first: a tenant's first timer is the earliest of theirs. */
const PRIORITIES = Array.from(
  { length: JOB_PRIORITY_LOWEST - JOB_PRIORITY_HIGHEST + 1 },
  (_, index) => JOB_PRIORITY_HIGHEST + index,
);
const FIRST_DUE_SQL = `SELECT MIN(due) AS due FROM (
  SELECT (SELECT MIN(due_at_ms) FROM runs WHERE tenant_id = ?1 AND priority = p.value AND due_at_ms IS NOT NULL) AS due
  FROM json_each(?2) AS p)`;

/** At most this many tenants get a share of one tick; the rest are read oldest first. */
const MAX_TENANTS_PER_TICK = 1_000;

/**
 * Up to `limit` rows due at `nowMs`. When every due row fits, they are reordered round robin by
 * tenant, each tenant's by job priority. When more are due than fit, each tenant with work due
 * gets an equal share of the read (its rows by priority, then oldest), interleaved; what the
 * shares leave unused goes to the oldest rows overall.
 */
export function readDueRuns(sql: SqlStorage, nowMs: number, limit: number): DueRow[] {
  const oldest = sql
    .exec<PrioritizedRun>(
      `SELECT ${DUE_COLUMNS}, priority FROM runs WHERE due_at_ms <= ? ORDER BY due_at_ms LIMIT ?`,
      nowMs,
      limit,
    )
    .toArray();
  const byTenant = (run: DueRow) => run.tenant_id;
  if (oldest.length < limit) return fairOrder(byPriority(oldest), byTenant);
  const tenants = tenantsWithWorkDue(sql, nowMs);
  if (tenants.length <= 1) return readOneTenant(sql, nowMs, limit, oldest);
  const share = sharePerTenant(limit, tenants.length);
  const queues = tenants.map((tenant) =>
    sql
      .exec<DueRow>(
        `SELECT ${DUE_COLUMNS} FROM runs WHERE tenant_id = ? AND due_at_ms <= ? ORDER BY priority, due_at_ms LIMIT ?`,
        tenant.tenantId,
        nowMs,
        share,
      )
      .toArray(),
  );
  const fair = roundRobin(queues).slice(0, limit);
  const taken = new Set(fair.map((run) => run.run_id));
  for (const run of oldest) {
    if (fair.length >= limit) break;
    if (!taken.has(run.run_id)) fair.push(run);
  }
  return fair;
}

type PrioritizedRun = DueRow & { priority: number };

/** Each tenant's runs by job priority (1 first), the order read kept within one priority. */
function byPriority(runs: PrioritizedRun[]): DueRow[] {
  return runs.some((run) => run.priority !== runs[0]?.priority)
    ? [...runs].sort((a, b) => a.priority - b.priority)
    : runs;
}

/**
 * One tenant with more due than the read takes: its rows by priority, then oldest. Read again only
 * when priorities differ among the oldest rows or lie beyond them (one seek tells).
 */
function readOneTenant(sql: SqlStorage, nowMs: number, limit: number, oldest: PrioritizedRun[]): DueRow[] {
  const tenantId = oldest[0]?.tenant_id;
  if (tenantId === undefined) return oldest;
  const top = sql
    .exec<{ p: number | null }>(
      "SELECT MIN(priority) AS p FROM runs WHERE tenant_id = ? AND due_at_ms <= ?",
      tenantId,
      nowMs,
    )
    .one().p;
  if (oldest.every((run) => run.priority === top)) return oldest;
  return sql
    .exec<DueRow>(
      `SELECT ${DUE_COLUMNS} FROM runs WHERE tenant_id = ? AND due_at_ms <= ? ORDER BY priority, due_at_ms LIMIT ?`,
      tenantId,
      nowMs,
      limit,
    )
    .toArray();
}

/**
 * Tenants with a run due, the one waiting longest first. Walks the (tenant_id, priority,
 * due_at_ms) index one tenant at a time instead of grouping every due row: a backlog of 80,000
 * rows costs a seek per tenant with timers on the shard, and one per priority for its first timer.
 */
function tenantsWithWorkDue(sql: SqlStorage, nowMs: number): { tenantId: string; firstDueMs: number }[] {
  const tenants: { tenantId: string; firstDueMs: number }[] = [];
  let after = "";
  for (let seen = 0; seen < MAX_TENANTS_PER_TICK; seen += 1) {
    const next = sql
      .exec<{ tenant_id: string }>(
        "SELECT tenant_id FROM runs WHERE tenant_id > ? AND due_at_ms IS NOT NULL ORDER BY tenant_id LIMIT 1",
        after,
      )
      .toArray()[0];
    if (next === undefined) break;
    after = next.tenant_id;
    const first = sql
      .exec<{ due: number | null }>(FIRST_DUE_SQL, after, JSON.stringify(PRIORITIES))
      .one().due;
    if (first !== null && first <= nowMs) tenants.push({ tenantId: after, firstDueMs: first });
  }
  return tenants.sort((a, b) => a.firstDueMs - b.firstDueMs);
}
