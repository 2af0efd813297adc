// History past its retention leaves the shard: pages whose instants and writing are both older
// (one row deleted per page, whatever it holds), and what the stats counted of them with them.
// Records of the table history used before pages go the same way.
import type { ShardState } from "../state/shard-state";
import { nextPageTenant, prunePages } from "../store/history-pages";
import { pruneLegacyHistory } from "./legacy-records";

/** Deletes up to `limit` pages (and old records) from before `beforeMs`; returns how many went. */
export function pruneHistory(state: ShardState, beforeMs: number, _nowMs: number, limit: number): number {
  let pruned = 0;
  let tenantId = nextPageTenant(state.sql, "");
  while (tenantId !== null && pruned < limit) {
    for (const counts of prunePages(state.sql, tenantId, beforeMs, limit - pruned)) {
      pruned += 1;
      for (const [runState, n] of Object.entries(JSON.parse(counts) as Record<string, number>)) {
        state.uncount(tenantId, runState, n);
      }
    }
    tenantId = nextPageTenant(state.sql, tenantId);
  }
  if (pruned < limit) {
    for (const record of pruneLegacyHistory(state.sql, beforeMs, limit - pruned)) {
      state.uncount(record.tenant_id, record.state, 1);
      pruned += 1;
    }
  }
  return pruned;
}
