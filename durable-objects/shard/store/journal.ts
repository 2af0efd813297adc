// The shard's journal: one row per commit, holding what the commit changed in memory (the runs
// and jobs it changed, whole, and the ones that left). The rows are a ring: entry `seq` lives in
// slot `seq % JOURNAL_SLOTS` and rewrites it in place, so an entry costs one row written and no
// delete later. A checkpoint (./snapshot.ts) always covers an entry before its slot comes round
// again (../state/shard-state.ts checkpoints well before that).

export const JOURNAL_SLOTS = 4_096;

export function writeJournalEntry(sql: SqlStorage, seq: number, body: string): void {
  sql.exec(
    `INSERT INTO journal (slot, seq, body) VALUES (?, ?, ?)
     ON CONFLICT (slot) DO UPDATE SET seq = excluded.seq, body = excluded.body`,
    seq % JOURNAL_SLOTS,
    seq,
    body,
  );
}

/** The entries after `seq`, oldest first. */
export function journalEntriesAfter(sql: SqlStorage, seq: number): { seq: number; body: string }[] {
  return sql
    .exec<{ seq: number; body: string }>("SELECT seq, body FROM journal WHERE seq > ? ORDER BY seq", seq)
    .toArray();
}

/** The newest entry's seq (0: none yet). */
export function lastJournalSeq(sql: SqlStorage): number {
  return sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM journal").one().seq ?? 0;
}
