// GET /v1/tzdata: the runtime's tz database version and every shard's progress towards it.
import type { z } from "zod";
import { shardCount, shardTzdata } from "../../../shard/client";
import type { TzdataProgress } from "../../../shard/protocol";
import { tzdataVersion } from "../../../tzdata";
import type { shardTzdataSchema, tzdataStatusSchema } from "../schemas";

/** Shards asked at once (production has 256). */
const SHARDS_PER_ROUND = 32;

export type ShardTzdataView = z.output<typeof shardTzdataSchema>;
export type TzdataView = z.output<typeof tzdataStatusSchema>;

/** Asks every shard (which also makes each compare versions now, not at its next alarm). */
export async function tzdataView(env: Env): Promise<TzdataView> {
  const version = tzdataVersion(env);
  const shards: ShardTzdataView[] = [];
  const count = shardCount(env);
  for (let first = 0; first < count; first += SHARDS_PER_ROUND) {
    const round = Array.from({ length: Math.min(SHARDS_PER_ROUND, count - first) }, (_, i) => first + i);
    const progress = await Promise.all(round.map((shard) => shardTzdata(env, shard)));
    shards.push(...progress.map(shardView));
  }
  return {
    tzdata: version,
    up_to_date: shards.every((shard) => shard.timers_version === version && shard.rederiving_to === null),
    shards,
  };
}

function shardView(progress: TzdataProgress): ShardTzdataView {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    shard: progress.shard,
    timers_version: progress.timersVersion,
    rederiving_to: progress.rederivingTo,
    jobs_done: progress.jobsDone,
    jobs_changed: progress.jobsChanged,
    jobs_total: progress.jobsTotal,
    started_at: iso(progress.startedAtMs),
    finished_at: iso(progress.finishedAtMs),
  };
}
