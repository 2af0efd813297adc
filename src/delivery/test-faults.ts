// Consumer-side fault injection for tests. The dispatch consumer consults it through one seam,
// `ConsumerTestSeam`; unless the EDGECRON_TEST_HOOKS binding is "1" the seam is inert: nothing
// is read (not even KV) and nothing can trigger.
export interface ConsumerFaults {
  /** Throw after this many target calls in a batch (a consumer crash mid-batch). */
  throwAfterCalls?: number;
  /** Throw after the target calls, before reporting them (a crash between call and report). */
  throwBeforeReport?: boolean;
}

export const CONSUMER_FAULTS_KEY = "test:consumer-faults";

export interface ConsumerTestSeam {
  /** Before each target call, with the batch's count of calls so far (this one included). */
  beforeCall(calls: number): void;
  /** Once a message's calls are made, before their outcomes are reported to the shard. */
  beforeReport(): void;
  /** Once the batch's calls are done, with their count. */
  afterBatch(calls: number): void;
}

const INERT_SEAM: ConsumerTestSeam = { beforeCall: () => {}, beforeReport: () => {}, afterBatch: () => {} };

export async function consumerTestSeam(env: Env): Promise<ConsumerTestSeam> {
  if (env.EDGECRON_TEST_HOOKS !== "1") return INERT_SEAM;
  const raw = await env.DEDUP_KV.get(CONSUMER_FAULTS_KEY);
  const { throwAfterCalls, throwBeforeReport } = raw
    ? (JSON.parse(raw) as ConsumerFaults)
    : ({} as ConsumerFaults);
  if (throwAfterCalls === undefined && throwBeforeReport !== true) return INERT_SEAM;
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
