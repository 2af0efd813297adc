// Moving an older single-database deployment's jobs out of the control database's `jobs` table
// into their job databases (`npm run migrate:layout`, and each maintenance pass while LEGACY_JOBS
// is "read"). The legacy table itself is the progress: a moved row is deleted from it, so a move
// interrupted anywhere is resumed by running it again, and running it twice changes nothing.
//
// A row moves in two steps: copy (insert, or overwrite an older copy), then delete the legacy row
// only if it is still exactly what was copied. A write that reached the legacy row in between (a
// shard's status, a sync mark) keeps the row there for the next pass to copy again. Shards are
// never told: they already hold each job's timers, and synced_version travels with the row, so
// the outbox re-sends only what no shard confirmed (never a stale version; shards refuse those).
import { jsonBytes, STATEMENT_LIMITS, splitIntoBatches } from "../core/load/queue-limits";
import { groupByHome, type JobStores } from "./databases";
import { JOB_COLUMNS, type JobRow } from "./jobs";

/** Rows per move: ~1 MB of statements at most, a few D1 queries, well inside one invocation. */
export const LAYOUT_MOVE_BATCH = 200;

/** `remaining` counts at most this many rows: a full COUNT(*) of millions of rows per batch would bill them all. */
export const REMAINING_COUNT_CAP = 10_000;

export interface LayoutMoveResult {
  moved: number;
  /** Jobs still in the legacy table after this step, up to REMAINING_COUNT_CAP (0: complete). */
  remaining: number;
}

type RowValues = (string | number | null)[];

function valuesOf(row: JobRow): RowValues {
  return JOB_COLUMNS.map((column) => row[column]);
}

const SELECTED = JOB_COLUMNS.map((_column, index) => `json_extract(value, '$[${index}]')`).join(", ");
const UPDATES = JOB_COLUMNS.filter((column) => column !== "id")
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");

/**
 * Step one: copies legacy rows to their job databases. A copy already there is overwritten only
 * by a newer row (version, then update time, then sync mark), so re-running never goes back.
 */
export async function copyJobsHome(stores: JobStores, rows: readonly JobRow[]): Promise<void> {
  await Promise.all(
    groupByHome(stores, rows, (row) => row.id).map(({ db, items }) =>
      db.batch(
        splitIntoBatches(items.map(valuesOf), jsonBytes, STATEMENT_LIMITS).map((group) =>
          db
            .prepare(
              `INSERT INTO jobs (${JOB_COLUMNS.join(", ")}) SELECT ${SELECTED} FROM json_each(?) WHERE true
               ON CONFLICT (id) DO UPDATE SET ${UPDATES}
               WHERE (excluded.version, excluded.updated_at_ms, excluded.synced_version)
                   > (jobs.version, jobs.updated_at_ms, jobs.synced_version)`,
            )
            .bind(JSON.stringify(group)),
        ),
      ),
    ),
  );
}

/** Step two: deletes the legacy rows that are still exactly as copied. */
async function deleteCopied(legacy: D1Database, rows: readonly JobRow[]): Promise<void> {
  const keys = rows.map((row) => [row.id, row.version, row.updated_at_ms, row.synced_version, row.status]);
  await legacy
    .prepare(
      `DELETE FROM jobs WHERE (id, version, updated_at_ms, synced_version, status) IN
         (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
                 json_extract(value, '$[3]'), json_extract(value, '$[4]') FROM json_each(?))`,
    )
    .bind(JSON.stringify(keys))
    .run();
}

async function legacyRows(legacy: D1Database, which: { ids: readonly string[] } | { limit: number }) {
  const statement =
    "ids" in which
      ? legacy
          .prepare("SELECT * FROM jobs WHERE id IN (SELECT value FROM json_each(?))")
          .bind(JSON.stringify(which.ids))
      : legacy.prepare("SELECT * FROM jobs ORDER BY id LIMIT ?").bind(which.limit);
  return (await statement.all<JobRow>()).results;
}

/**
 * Moves these legacy jobs (by id; `remaining` is then -1, not counted), or the next `limit` of
 * them, to their job databases. `legacy` is the control database to read the old table from
 * (the admin route passes it whatever LEGACY_JOBS says).
 */
export async function moveLegacyJobs(
  stores: JobStores,
  which: { ids: readonly string[] } | { limit: number },
  legacy: D1Database | null = stores.legacy,
): Promise<LayoutMoveResult> {
  if (legacy === null) return { moved: 0, remaining: 0 };
  const rows = await legacyRows(legacy, which);
  if (rows.length > 0) {
    await copyJobsHome(stores, rows);
    await deleteCopied(legacy, rows);
  }
  // A job moved because it was read needs no count: only the batch moves report progress.
  if ("ids" in which) return { moved: rows.length, remaining: -1 };
  const left = await legacy
    .prepare("SELECT COUNT(*) AS n FROM (SELECT 1 FROM jobs LIMIT ?)")
    .bind(REMAINING_COUNT_CAP)
    .first<{ n: number }>();
  return { moved: rows.length, remaining: left?.n ?? 0 };
}
