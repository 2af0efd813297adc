// A QStash queue is a named parallelism limit: its messages carry the flow-control key
// `queue:<name>`, so the queue's gate counts their calls in flight.
export const QUEUE_KEY_PREFIX = "queue:";

/** The flow-control key of a queue's messages (fits the keys flow control accepts). */
export function queueFlowKey(name: string): string {
  return `${QUEUE_KEY_PREFIX}${name}`;
}

/** The queue a flow-control key belongs to, or null for a key of a plain message's own. */
export function queueNameOfFlowKey(key: string | null | undefined): string | null {
  return key?.startsWith(QUEUE_KEY_PREFIX) ? key.slice(QUEUE_KEY_PREFIX.length) : null;
}

/** `{queueName}` for a queue's key, `{}` otherwise: the field as QStash's views carry it. */
export function queueNameField(key: string | null | undefined): { queueName?: string } {
  const queueName = queueNameOfFlowKey(key);
  return queueName === null ? {} : { queueName };
}
