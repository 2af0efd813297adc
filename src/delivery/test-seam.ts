// Where the dispatch consumer's injected faults take effect (which faults exist:
// src/test-faults.ts). The consumer consults them through one seam, `ConsumerTestSeam`; unless the
// EDGECRON_TEST_HOOKS binding is "1" that seam is INERT_CONSUMER_SEAM: nothing is read (not even
// KV, this is the dispatch hot path) and nothing can trigger.
import { CONSUMER_FAULTS_KEY, type ConsumerFaults } from "../test-faults";

export interface ConsumerTestSeam {
  /** Before each target call, with the batch's count of calls so far (this one included). */
  beforeCall(calls: number): void;
  /** Once a message's calls are made, before their outcomes are reported to the shard. */
  beforeReport(): void;
  /** Once the batch's calls are done, with their count. */
  afterBatch(calls: number): void;
}

export const INERT_CONSUMER_SEAM: ConsumerTestSeam = {
  beforeCall: () => {},
  beforeReport: () => {},
  afterBatch: () => {},
};

/** The seam for this batch: live (faults read from KV) only with test hooks enabled. */
export async function loadConsumerTestSeam(env: Env): Promise<ConsumerTestSeam> {
  if (env.EDGECRON_TEST_HOOKS !== "1") return INERT_CONSUMER_SEAM;
  const raw = await env.DEDUP_KV.get(CONSUMER_FAULTS_KEY);
  const { throwAfterCalls, throwBeforeReport } = raw
    ? (JSON.parse(raw) as ConsumerFaults)
    : ({} as ConsumerFaults);
  if (throwAfterCalls === undefined && throwBeforeReport !== true) return INERT_CONSUMER_SEAM;
  return {
    beforeReport: () => {
      if (throwBeforeReport === true) throw new Error("fault injected: consumer crashed before reporting");
    },
    beforeCall: (calls) => {
      if (throwAfterCalls !== undefined && calls > throwAfterCalls)
        throw new Error(`fault injected: consumer crashes after ${throwAfterCalls} calls`);
    },
    afterBatch: (calls) => {
      if (throwAfterCalls !== undefined && calls > throwAfterCalls)
        throw new Error(`fault injected: consumer crashed mid-batch after ${throwAfterCalls} calls`);
    },
  };
}
