// Every fault a test can inject, as plain data, and where each is kept. Each seam is inert unless
// the EDGECRON_TEST_HOOKS binding is "1": then nothing is read, nothing can trigger.
//
// - A shard's faults (`ShardFaults`) and test commands (`ShardTestCommand`) reach it through the
//   shard RPC `testHook`; it keeps the faults in its storage and applies them in
//   durable-objects/shard/test-seam.ts (`loadShardTestSeam`).
// - The dispatch consumer's faults (`ConsumerFaults`) are kept in KV under `CONSUMER_FAULTS_KEY`
//   and applied in src/delivery/test-seam.ts (`loadConsumerTestSeam`).
//
// Tests and the test hooks door (src/api/v1/test-hooks.ts) switch them one way only: through
// src/service/fault-injection.ts (`injectFaults`, `clearFaults`).
import type { TzdataOverride } from "./tzdata";

/** Faults a test can switch on in one shard (persisted in its storage until cleared). */
export interface ShardFaults {
  /** The alarm throws after firing this many jobs in a pass (a crash mid-pass). */
  alarmThrowAfterJobs?: number;
  failSendBatch?: boolean;
  /** sendBatch "succeeds" but nothing is sent: a queue that lost the messages. */
  dropDispatches?: boolean;
  /** The next N claim / outcome / upsert RPCs fail (the shard unreachable). */
  failClaims?: number;
  /** The write-behind fails (D1 unavailable): history, job statuses and dead letters stay marked. */
  failWriteBehind?: boolean;
  /** Jobs re-derived per alarm after a tz database change (small, to see several batches). */
  rederiveBatchJobs?: number;
}

/** What the test hooks ask of a shard; every command answers with the faults now set. */
export type ShardTestCommand =
  | { op: "set_faults"; faults: ShardFaults }
  | { op: "get_faults" }
  /** Deletes the alarm and keeps anything (the watchdog included) from re-arming it for a while. */
  | { op: "lose_alarm"; lostForMs: number }
  /** Simulates a deploy with another tz database in this isolate (null: the real one again). */
  | { op: "set_tzdata"; override: TzdataOverride | null };

/** Faults a test can switch on in the dispatch consumer (every isolate's, until cleared). */
export interface ConsumerFaults {
  /** Throw after this many target calls in a batch (a consumer crash mid-batch). */
  throwAfterCalls?: number;
  /** Throw after the target calls, before reporting them (a crash between call and report). */
  throwBeforeReport?: boolean;
}

/** The KV key (in DEDUP_KV) the dispatch consumer's faults are kept under. */
export const CONSUMER_FAULTS_KEY = "test:consumer-faults";

/** Where faults are injected: a shard (its number) or the dispatch consumer. */
export type FaultSite = number | "consumer";
