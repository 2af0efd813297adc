// Moving a deployment's run history out of D1: before history lived in the shards, every shard
// wrote it to D1's `runs` table. Each maintenance pass moves one batch of those rows into the
// shards that own them (a row names its shard) and deletes them from D1 once the shard has
// them. Idempotent and resumable: a row is deleted only after its shard confirmed it, and a
// shard keeps the newer of two versions of a record, so a repeated or interrupted move loses
// nothing and changes nothing twice. When the table is empty every pass costs one query.
import { deleteLegacyRuns, type LegacyRunRow, listLegacyRuns } from "../../src/db/runs";
import { logEvent } from "../../src/log";
import { importHistoryToShard } from "../../src/shard/history-client";

/** Rows moved per pass (one D1 read, one D1 delete, one request per shard holding them). */
export const LEGACY_RUNS_PER_PASS = 2_000;

export async function moveLegacyHistory(env: Env): Promise<number> {
  const rows = await listLegacyRuns(env.DB, LEGACY_RUNS_PER_PASS);
  if (rows.length === 0) return 0;
  const byShard = new Map<number, LegacyRunRow[]>();
  for (const row of rows) byShard.set(row.shard, [...(byShard.get(row.shard) ?? []), row]);
  const moved: string[] = [];
  await Promise.all(
    [...byShard].map(async ([shard, group]) => {
      try {
        await importHistoryToShard(env, shard, group);
        moved.push(...group.map((row) => row.id));
      } catch (error) {
        // Left in D1: the next pass tries again.
        logEvent("maintenance.legacy_history_failed", { shard, runs: group.length, error });
      }
    }),
  );
  return deleteLegacyRuns(env.DB, moved);
}
