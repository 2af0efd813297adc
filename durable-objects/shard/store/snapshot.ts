// The shard's checkpoint: its in-memory state written whole, in chunks, so a restart reads it
// back and then replays only the journal entries after it (./journal.ts). A checkpoint rewrites
// only the chunks that changed since the last one; each chunk is one row, rewritten in place.

/** Slot of the checkpoint's header: what it covers and how its chunks are laid out. */
export const HEADER_SLOT = 0;
/** Slot of the stats aggregates. */
export const STATS_SLOT = 1;
/** Job chunk k is slot JOB_SLOTS + k; run chunk k is slot RUN_SLOTS + k. */
export const JOB_SLOTS = 1_000_000;
export const RUN_SLOTS = 2_000_000;

export function writeSnapshotSlot(sql: SqlStorage, slot: number, body: string): void {
  sql.exec(
    "INSERT INTO snapshot (slot, body) VALUES (?, ?) ON CONFLICT (slot) DO UPDATE SET body = excluded.body",
    slot,
    body,
  );
}

/** Deletes the chunk slots in [fromSlot, toSlot) (after the chunks were laid out anew). */
export function deleteSnapshotSlots(sql: SqlStorage, fromSlot: number, toSlot: number): void {
  sql.exec("DELETE FROM snapshot WHERE slot >= ? AND slot < ?", fromSlot, toSlot);
}

export function readSnapshot(sql: SqlStorage): Map<number, string> {
  const rows = sql.exec<{ slot: number; body: string }>("SELECT slot, body FROM snapshot").toArray();
  return new Map(rows.map((row) => [row.slot, row.body]));
}
