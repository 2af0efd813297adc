// What a dead letter stores of the request that failed. A letter too large for a queue message
// arrives by reference (payload_ref): its headers and body are read from the job in D1. Whatever
// the source, at most MAX_STORED_PAYLOAD_BYTES are kept: headers up to 16 KiB, then the body cut to
// fit, flagged `body_truncated` with the whole body's size. Redrive never reads this payload (the
// shard runs the job's own target again), so a cut body loses nothing but what the API shows.
import { serializeTargetBody } from "../core/jobs/job-spec";
import { deadLetterPayload } from "../core/jobs/target-payload";
import { utf8Bytes, utf8Prefix } from "../core/load/queue-limits";
import type { JobStores } from "../db/databases";
import { findStoredJob } from "../db/job-store";
import type { StoredJob } from "../db/jobs";
import type { DeadLetterMessage } from "../shard/protocol";

/** The most a dead letter's payload_json holds (UTF-8 bytes of the JSON). */
export const MAX_STORED_PAYLOAD_BYTES = 64 * 1024;
/** Headers kept of a payload that must be cut; the rest of the room goes to the body. */
export const MAX_STORED_HEADERS_BYTES = 16 * 1024;

type LetterPayload = DeadLetterMessage["payload"];

export interface StoredPayload extends LetterPayload {
  /** Some headers were left out (their JSON passed MAX_STORED_HEADERS_BYTES). */
  headers_truncated?: true;
  /** `body` is the first bytes of the body as sent (text), cut to fit. */
  body_truncated?: true;
  /** The whole body's size in UTF-8 bytes, when cut. */
  body_bytes?: number;
  /** Sent by reference, but the job was not found: only method and URL are known. */
  payload_unavailable?: true;
}

/** Each letter's payload: the message's own, or (by reference) the job's target read from its job database. */
export async function payloadsOf(
  stores: JobStores,
  letters: readonly DeadLetterMessage[],
): Promise<StoredPayload[]> {
  const jobs = new Map<string, Promise<StoredJob | null>>();
  const jobOf = (tenantId: string, jobId: string) => {
    const key = `${tenantId}/${jobId}`;
    let job = jobs.get(key);
    if (job === undefined) {
      job = findStoredJob(stores, tenantId, jobId);
      jobs.set(key, job);
    }
    return job;
  };
  return Promise.all(
    letters.map(async (letter): Promise<StoredPayload> => {
      if (letter.payload_ref === undefined) return letter.payload;
      const target = (await jobOf(letter.tenant, letter.job_id))?.spec.target;
      if (target === undefined) return { ...letter.payload, payload_unavailable: true };
      return deadLetterPayload(target);
    }),
  );
}

/**
 * The payload as stored: whole when its JSON fits in MAX_STORED_PAYLOAD_BYTES, else with headers
 * bounded and the body cut. @example storedPayloadJson({ ..., body: "x".repeat(90_000) }) // 64 KiB
 */
export function storedPayloadJson(payload: StoredPayload): string {
  const whole = JSON.stringify(payload);
  if (utf8Bytes(whole) <= MAX_STORED_PAYLOAD_BYTES) return whole;
  const bounded: StoredPayload = { ...payload, ...boundedHeaders(payload.headers) };
  const withBody = JSON.stringify(bounded);
  if (utf8Bytes(withBody) <= MAX_STORED_PAYLOAD_BYTES) return withBody;
  const text = serializeTargetBody(payload.body) ?? "";
  const skeleton: StoredPayload = { ...bounded, body: "", body_truncated: true, body_bytes: utf8Bytes(text) };
  const jsonWith = (body: string) => JSON.stringify({ ...skeleton, body });
  const fits = (body: string) => utf8Bytes(jsonWith(body)) <= MAX_STORED_PAYLOAD_BYTES;
  // Plain text fits at its byte budget at once; JSON escapes (quotes, control characters) take
  // more room than their bytes, so then the longest prefix that fits is searched for.
  const estimate = utf8Prefix(text, MAX_STORED_PAYLOAD_BYTES - utf8Bytes(jsonWith("")));
  if (fits(estimate)) return jsonWith(estimate);
  let fitting = 0;
  let tooLong = estimate.length;
  while (tooLong - fitting > 1) {
    const middle = Math.floor((fitting + tooLong) / 2);
    if (fits(prefixOf(estimate, middle))) fitting = middle;
    else tooLong = middle;
  }
  return jsonWith(prefixOf(estimate, fitting));
}

/** The first `length` UTF-16 units, never ending on half a surrogate pair. */
function prefixOf(text: string, length: number): string {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

function boundedHeaders(
  headers: Record<string, string>,
): Pick<StoredPayload, "headers" | "headers_truncated"> {
  const kept: Record<string, string> = {};
  let bytes = 2;
  for (const [name, value] of Object.entries(headers)) {
    bytes += utf8Bytes(JSON.stringify(name)) + utf8Bytes(JSON.stringify(value)) + 2;
    if (bytes > MAX_STORED_HEADERS_BYTES) return { headers: kept, headers_truncated: true };
    kept[name] = value;
  }
  return { headers: kept };
}
