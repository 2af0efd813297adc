// What every list of a shard's run history is built from: a record as reads return it, a page's
// records, the newest-first order and its cursor, and one record per run.
import { runIdFor } from "../../../src/core/runs/run-id";
import { runIdempotencyKey } from "../../../src/core/runs/run-idempotency";
import type { HistoryCursor, HistoryRecord } from "../../../src/shard/history-protocol";
import { type HistoryPageRecord, type StoredRecord, storedRecordOfPage } from "../records/page-records";
import type { PageRow } from "../store/history-pages";

export function recordOf(row: StoredRecord, shard: number): HistoryRecord {
  return {
    ...row,
    id: runIdFor(row.job_id, row.scheduled_at_ms),
    shard,
    idempotency_key: runIdempotencyKey(row.job_id, row.scheduled_at_ms),
  };
}

/** The records a page holds, as reads return them. */
export function recordsOfPage(page: PageRow): StoredRecord[] {
  return (JSON.parse(page.body) as HistoryPageRecord[]).map((record) =>
    storedRecordOfPage(page.tenant_id, record),
  );
}

/** Newest instant first, then run id descending: the order of every list. */
function newestFirst(a: StoredRecord, b: StoredRecord): number {
  if (a.scheduled_at_ms !== b.scheduled_at_ms) return b.scheduled_at_ms - a.scheduled_at_ms;
  const idA = runIdFor(a.job_id, a.scheduled_at_ms);
  const idB = runIdFor(b.job_id, b.scheduled_at_ms);
  return idA < idB ? 1 : idA > idB ? -1 : 0;
}

/** Strictly after the cursor in newest-first order. */
export function afterCursor(record: StoredRecord, cursor: HistoryCursor | undefined): boolean {
  if (cursor === undefined) return true;
  if (record.scheduled_at_ms !== cursor.ms) return record.scheduled_at_ms < cursor.ms;
  return runIdFor(record.job_id, record.scheduled_at_ms) < cursor.id;
}

/**
 * Keeps one record per run: its live state if it has one, else its newest record (an operator's
 * retry writes a run's record again).
 */
export class RunSet {
  private readonly byId = new Map<string, { record: StoredRecord; live: boolean }>();

  add(record: StoredRecord, live = false): void {
    const id = runIdFor(record.job_id, record.scheduled_at_ms);
    const held = this.byId.get(id);
    if (held !== undefined && (held.live || (!live && held.record.updated_at_ms >= record.updated_at_ms)))
      return;
    this.byId.set(id, { record, live });
  }

  sorted(): StoredRecord[] {
    return [...this.byId.values()].map((entry) => entry.record).sort(newestFirst);
  }

  get size(): number {
    return this.byId.size;
  }
}
