// Consumer-side fault injection for tests. Read only when the EDGECRON_TEST_HOOKS binding is "1";
// in any real deployment this costs nothing and can never trigger.
export interface ConsumerFaults {
  /** Throw after this many target calls in a batch (a consumer crash mid-batch). */
  throwAfterCalls?: number;
  /** Throw after the target calls, before reporting them (a crash between call and report). */
  throwBeforeReport?: boolean;
}

export const CONSUMER_FAULTS_KEY = "test:consumer-faults";

export async function consumerFaults(env: Env): Promise<ConsumerFaults> {
  if (env.EDGECRON_TEST_HOOKS !== "1") return {};
  const raw = await env.DEDUP_KV.get(CONSUMER_FAULTS_KEY);
  return raw ? (JSON.parse(raw) as ConsumerFaults) : {};
}
