// The one way faults are switched, for the test hooks door and the tests alike: `where` is a shard
// (its number) or the dispatch consumer. Which faults exist, where they are kept and where they
// take effect: src/test-faults.ts. A shard refuses these unless EDGECRON_TEST_HOOKS is "1"; the
// consumer's seam reads nothing unless it is.
import { loseShardAlarm, setShardFaults, setShardTzdata, shardFaults } from "../shard/test-hook-client";
import { CONSUMER_FAULTS_KEY, type ConsumerFaults, type FaultSite, type ShardFaults } from "../test-faults";

// The shard's other test commands (a lost alarm, another tz database) go the same way.
export { loseShardAlarm, setShardTzdata };

/** Replaces the faults injected at `where` (`{}` clears them, like `clearFaults`). */
export function injectFaults(env: Env, where: "consumer", faults: ConsumerFaults): Promise<void>;
export function injectFaults(env: Env, where: number, faults: ShardFaults): Promise<void>;
export async function injectFaults(
  env: Env,
  where: FaultSite,
  faults: ConsumerFaults | ShardFaults,
): Promise<void> {
  if (where === "consumer") await env.DEDUP_KV.put(CONSUMER_FAULTS_KEY, JSON.stringify(faults));
  // The overloads above pair a shard with its own faults.
  else await setShardFaults(env, where, faults as ShardFaults);
}

export async function clearFaults(env: Env, where: FaultSite): Promise<void> {
  if (where === "consumer") await env.DEDUP_KV.delete(CONSUMER_FAULTS_KEY);
  else await setShardFaults(env, where, {});
}

/** The faults now injected at `where` (a shard's count down as they trigger). */
export function injectedFaults(env: Env, where: "consumer"): Promise<ConsumerFaults>;
export function injectedFaults(env: Env, where: number): Promise<ShardFaults>;
export async function injectedFaults(env: Env, where: FaultSite): Promise<ConsumerFaults | ShardFaults> {
  if (where !== "consumer") return shardFaults(env, where);
  return (await env.DEDUP_KV.get<ConsumerFaults>(CONSUMER_FAULTS_KEY, "json")) ?? {};
}
