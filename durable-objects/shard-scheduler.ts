import { DurableObject } from "cloudflare:workers";

/** One shard's timing wheel: the single writer of its jobs' timers and in-flight runs. */
export class ShardScheduler extends DurableObject<Env> {}
