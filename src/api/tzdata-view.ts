// GET /v1/tzdata: the runtime's tz database version and every shard's progress towards it.
import { shardCount, shardTzdata } from "../shard/client";
import type { TzdataProgress } from "../shard/protocol";
import { tzdataVersion } from "../tzdata";

/** Shards asked at once (production has 256). */
const SHARDS_PER_ROUND = 32;

export interface ShardTzdataView {
  shard: number;
  timers_version: string | null;
  rederiving_to: string | null;
  jobs_done: number;
  jobs_changed: number;
  jobs_total: number;
  started_at: string | null;
  finished_at: string | null;
}

export interface TzdataView {
  tzdata: string;
  /** Every shard's timers were computed with the runtime's version. */
  up_to_date: boolean;
  shards: ShardTzdataView[];
}

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
