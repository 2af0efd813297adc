// Where a job lives: its shard, derived once from its id and stored with it.
import { hash32 } from "../common/stable-hash";

/**
 * The shard that owns a job: `hash32(jobId) mod shardCount`. Computed once at create and
 * stored on the job, so changing SHARD_COUNT later moves nobody.
 *
 * @example shardForJob("job_01HZX", 16) // an integer in [0, 16)
 */
export function shardForJob(jobId: string, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1) {
    throw new RangeError(`shardCount must be a positive integer, got ${shardCount}`);
  }
  return hash32(jobId) % shardCount;
}
