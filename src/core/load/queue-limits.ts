// Cloudflare Queues size limits, and splitting a send to fit them. Pure: sizes are measured on the
// serialized JSON body, exactly as a `contentType: "json"` message is sent.
// https://developers.cloudflare.com/queues/platform/limits/ : 1 KB is 1,000 bytes; a message is at
// most 128 KB including ~100 bytes of metadata; one sendBatch at most 100 messages and 256 KB.

export const QUEUE_MESSAGE_LIMIT_BYTES = 128_000;
export const QUEUE_BATCH_LIMIT_BYTES = 256_000;
export const QUEUE_BATCH_LIMIT_MESSAGES = 100;

/** What one message costs a batch besides its body: the queue's metadata plus a margin. */
export const MESSAGE_OVERHEAD_BYTES = 512;

export interface QueueSendLimits {
  /** The largest serialized body sent as one message. */
  maxMessageBytes: number;
  /** The most body bytes (plus overhead per message) in one sendBatch. */
  maxBatchBytes: number;
  maxBatchMessages: number;
}

/** The queue's limits with margin: 8 KB under the message limit, 16 KB under the batch limit. */
export const QUEUE_SEND_LIMITS: QueueSendLimits = {
  maxMessageBytes: QUEUE_MESSAGE_LIMIT_BYTES - 8_000,
  maxBatchBytes: QUEUE_BATCH_LIMIT_BYTES - 16_000,
  maxBatchMessages: QUEUE_BATCH_LIMIT_MESSAGES,
};

/**
 * The same split for SQL statements that carry rows as one JSON parameter: D1 and Durable
 * Object SQLite refuse strings past about 2 MB (SQLITE_TOOBIG), so each statement stays near 1 MB.
 */
export const STATEMENT_LIMITS: QueueSendLimits = {
  maxMessageBytes: 1_000_000,
  maxBatchBytes: 1_000_000,
  maxBatchMessages: 250,
};

const encoder = new TextEncoder();

/** Any character outside ASCII: text without one is one UTF-8 byte a character. */
const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  // Most text here is ASCII (a job row's JSON): one byte a character, and nothing to allocate.
  return NON_ASCII.test(text) ? encoder.encode(text).byteLength : text.length;
}

/** UTF-8 bytes of a value serialized as JSON: the size of a JSON queue message's body. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? "");
}

/**
 * Splits items, in order, into sendBatch-sized groups: at most `maxBatchMessages` each, and body
 * bytes plus per-message overhead within `maxBatchBytes`. An item too large to share a batch goes
 * alone (the caller makes sure no item exceeds `maxMessageBytes`).
 * @example splitIntoBatches([a, b, c], (m) => m.bytes) // [[a, b], [c]] when c would overflow
 */
export function splitIntoBatches<T>(
  items: readonly T[],
  bytesOf: (item: T) => number,
  limits: QueueSendLimits = QUEUE_SEND_LIMITS,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const item of items) {
    const cost = bytesOf(item) + MESSAGE_OVERHEAD_BYTES;
    const full = current.length >= limits.maxBatchMessages || currentBytes + cost > limits.maxBatchBytes;
    if (current.length > 0 && full) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(item);
    currentBytes += cost;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a
 * character. @example utf8Prefix("héllo", 2) // "h"
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Back up to the start of a character: continuation bytes are 0b10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
