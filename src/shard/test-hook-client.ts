// The shard client's test hooks: the shard refuses these unless the EDGECRON_TEST_HOOKS binding is "1".
import type { ShardFaults } from "../test-faults";
import type { TzdataOverride } from "../tzdata";
import { shardStub } from "./client";

/** Replaces the shard's injected faults (`{}` clears them). */
export async function setShardFaults(env: Env, shard: number, faults: ShardFaults): Promise<void> {
  await shardStub(env, shard).testHook({ op: "set_faults", faults });
}

export async function shardFaults(env: Env, shard: number): Promise<ShardFaults> {
  return shardStub(env, shard).testHook({ op: "get_faults" });
}

/** Simulates a deploy with another tz database (version and zone rules); null restores the real one. */
export async function setShardTzdata(
  env: Env,
  shard: number,
  override: TzdataOverride | null,
): Promise<void> {
  await shardStub(env, shard).testHook({ op: "set_tzdata", override });
}

/** Simulates a lost alarm that nothing re-arms for `lostForMs` (then the watchdog repairs it). */
export async function loseShardAlarm(env: Env, shard: number, lostForMs: number): Promise<void> {
  await shardStub(env, shard).testHook({ op: "lose_alarm", lostForMs });
}
