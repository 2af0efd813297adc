// GET /v1/tzdata: the runtime's tz database version and every shard's progress towards it.
import type { z } from "zod";
import { tzdataProgressOfShards } from "../../../service/tzdata-progress";
import type { TzdataProgress } from "../../../shard/protocol";
import { tzdataVersion } from "../../../tzdata";
import type { shardTzdataSchema, tzdataStatusSchema } from "../schemas";

export type ShardTzdataView = z.output<typeof shardTzdataSchema>;
export type TzdataView = z.output<typeof tzdataStatusSchema>;

/** Asks every shard (which also makes each compare versions now, not at its next alarm). */
export async function tzdataView(env: Env): Promise<TzdataView> {
  const version = tzdataVersion(env);
  const shards = (await tzdataProgressOfShards(env)).map(shardView);
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
