// Idempotent creates: a request sent with a key stores its jobs under that key (a batch's items
// under the key and their index), so a retry finds what the first attempt stored and creates
// nothing. Same key + same body replays; same key + another body is a conflict.
import { EdgecronError } from "../../core/common/errors";

/** A create's key and the canonical hash of its body. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

export function idempotencyConflict(): EdgecronError {
  return new EdgecronError(
    "idempotency_conflict",
    "This Idempotency-Key was already used with another request body",
  );
}

/**
 * The stored key of item `index` of a batch sent with `key`. A newline cannot occur in a header
 * value, so no single create's key can ever equal a batch item's.
 */
export function batchItemKey(key: string, index: number): string {
  return `${key}\n${index}`;
}
