// No test may leave a Durable Object alarm armed: alarms outlive a test (and its file's isolated
// storage) and fire into whatever runs next. The Worker addresses shards by number
// (`shard-0`..`shard-{SHARD_COUNT-1}`), so tests cannot give shards their own names; DOs a test
// calls directly get a unique name per test (uniqueDoName). no-alarm-left.ts reads every alarm
// after each integration test and fails the test if one is armed.
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, expect } from "vitest";
import { loseShardAlarm } from "../../src/service/fault-injection";
import { shardCount } from "../../src/shard/client";
import { shardStub } from "./scheduling";

export interface ArmedAlarm {
  /** `shard-N` or the unique name of a DO a test called directly. */
  name: string;
  alarmAtMs: number;
}

/** Unique-named DOs created by this file's tests, with the namespace to reach them again. */
const namedObjects = new Map<string, DurableObjectStub>();

let nameCounter = 0;
/** A Durable Object name no other test uses: `<label>-<time>-<n>`. */
export function uniqueDoName(label: string): string {
  nameCounter += 1;
  return `${label}-${Date.now().toString(36)}-${nameCounter}`;
}

/** A Maintenance DO of the test's own: the pass it runs covers every shard whatever its name. */
export function maintenanceStub() {
  const name = uniqueDoName("maintenance");
  const stub = env.MAINTENANCE.getByName(name);
  namedObjects.set(name, stub);
  return stub;
}

function readAlarm(stub: DurableObjectStub): Promise<number | null> {
  return runInDurableObject(stub, (_instance, state: DurableObjectState) => state.storage.getAlarm());
}

/** Every alarm armed now on a shard or on a DO this file's tests named. */
export async function armedAlarms(): Promise<ArmedAlarm[]> {
  const stubs: [string, DurableObjectStub][] = [...namedObjects];
  for (let shard = 0; shard < shardCount(env); shard++) stubs.push([`shard-${shard}`, shardStub(shard)]);
  const alarms = await Promise.all(
    stubs.map(async ([name, stub]) => ({ name, alarmAtMs: await readAlarm(stub) })),
  );
  return alarms.filter((alarm): alarm is ArmedAlarm => alarm.alarmAtMs !== null);
}

/**
 * Deletes every armed alarm. Shards through their own hook, so the shard's memory of what it
 * armed agrees with storage and its next write re-arms normally.
 */
export async function disarmAll(): Promise<void> {
  const armed = await armedAlarms();
  await Promise.all(
    armed.map(async ({ name }) => {
      const named = namedObjects.get(name);
      if (named) {
        await runInDurableObject(named, (_instance, state: DurableObjectState) =>
          state.storage.deleteAlarm(),
        );
      } else {
        await loseShardAlarm(env, Number(name.slice("shard-".length)), 0);
      }
    }),
  );
}

/** How long nothing may re-arm before a drain counts as done. */
const DRAIN_QUIET_MS = 250;
const DRAIN_DEADLINE_MS = 5_000;

/**
 * Disarms until nothing re-arms for DRAIN_QUIET_MS (a test's last runs may still be reporting
 * back, and each report re-arms its shard for the jobs it holds); fails if alarms keep coming back
 * until the deadline: work the test left running.
 */
export async function drainAlarms(): Promise<void> {
  const deadlineMs = Date.now() + DRAIN_DEADLINE_MS;
  for (;;) {
    const armed = await armedAlarms();
    if (armed.length === 0) return;
    await disarmAll();
    if (Date.now() >= deadlineMs) {
      expect.fail(`alarms kept re-arming for ${DRAIN_DEADLINE_MS} ms: ${describeAlarms(armed, Date.now())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, DRAIN_QUIET_MS));
  }
}

let fileDrains = false;
/** True when this file declared disarmShardsAfterEach(): its drain has the last word. */
export function fileDrainsAlarms(): boolean {
  return fileDrains;
}

/**
 * For files whose tests leave scheduled jobs on purpose (Worker-driven tests create recurring
 * jobs through the API, and the Worker addresses shards by number, so a later test's writes
 * would re-arm for them): after each test, drains and deletes every alarm, failing if they keep
 * coming back. A report landing after the drain can re-arm a shard at any moment, so for these
 * files the drain, not the no-alarm-left check, is the assertion.
 */
export function disarmShardsAfterEach(): void {
  fileDrains = true;
  afterEach(drainAlarms, DRAIN_DEADLINE_MS + 5_000);
}

/** Describes armed alarms for a failure message: `shard-4 in 966 ms`. */
export function describeAlarms(armed: ArmedAlarm[], nowMs: number): string {
  return armed.map(({ name, alarmAtMs }) => `${name} in ${alarmAtMs - nowMs} ms`).join(", ");
}
