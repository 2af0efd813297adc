// Every shard's progress towards the runtime's tz database version. Asking also makes each shard
// compare versions now, not at its next alarm.
import { shardCount, shardTzdata } from "../shard/client";
import type { TzdataProgress } from "../shard/protocol";

/** Shards asked at once (production has 256). */
const SHARDS_PER_ROUND = 32;

export async function tzdataProgressOfShards(env: Env): Promise<TzdataProgress[]> {
  const count = shardCount(env);
  const progress: TzdataProgress[] = [];
  for (let first = 0; first < count; first += SHARDS_PER_ROUND) {
    const round = Array.from({ length: Math.min(SHARDS_PER_ROUND, count - first) }, (_, i) => first + i);
    progress.push(...(await Promise.all(round.map((shard) => shardTzdata(env, shard)))));
  }
  return progress;
}
