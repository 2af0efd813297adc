// Consumer-side fault injection for tests. The dispatch consumer consults it through one seam,
// `ConsumerTestSeam`; unless the EDGECRON_TEST_HOOKS binding is "1" the seam is inert: nothing
// is read (not even KV) and nothing can trigger.
export interface ConsumerFaults {
  /** Throw after this many target calls in a batch (a consumer crash mid-batch). */
  throwAfterCalls?: number;
}

export const CONSUMER_FAULTS_KEY = "test:consumer-faults";

export interface ConsumerTestSeam {
  /** Before each target call, with the batch's count of calls so far (this one included). */
  beforeCall(calls: number): void;
  /** Once the batch's calls are done, with their count. */
  afterBatch(calls: number): void;
}

const INERT_SEAM: ConsumerTestSeam = { beforeCall: () => {}, afterBatch: () => {} };

export async function consumerTestSeam(env: Env): Promise<ConsumerTestSeam> {
  if (env.EDGECRON_TEST_HOOKS !== "1") return INERT_SEAM;
  const raw = await env.DEDUP_KV.get(CONSUMER_FAULTS_KEY);
  const { throwAfterCalls } = raw ? (JSON.parse(raw) as ConsumerFaults) : ({} as ConsumerFaults);
  if (throwAfterCalls === undefined) return INERT_SEAM;
  return {
    beforeCall: (calls) => {
      if (calls > throwAfterCalls)
        throw new Error(`fault injected: consumer crashes after ${throwAfterCalls} calls`);
    },
    afterBatch: (calls) => {
      if (calls > throwAfterCalls)
        throw new Error(`fault injected: consumer crashed mid-batch after ${throwAfterCalls} calls`);
    },
  };
}
