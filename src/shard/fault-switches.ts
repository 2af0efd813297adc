// Test-only fault switches a shard understands: plain data that the test hooks and tests send
// through src/shard/client.ts. The shard applies them in durable-objects/shard/test-seam.ts, only when the
// EDGECRON_TEST_HOOKS binding is "1".
import type { TzdataOverride } from "../tzdata";

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
