// The body of POST /v2/batch: a JSON array of `{destination, headers, body, queue?}`, as the
// client sends it (header names lower-cased), read into one message's parts per item.
import type { Context } from "hono";
import { headerMapIssues } from "../../../core/targets/header-map";
import { EdgecronError } from "../../http/problem";
import { badRequest } from "../errors";
import type { HeaderError } from "../headers";
import { isQueueName, QUEUE_NAME_MESSAGE } from "../queues/queues";

export const MAX_BATCH_MESSAGES = 1000;

export interface BatchItem {
  destination: string;
  headers: Headers;
  body: Uint8Array;
  queueName: string | null;
}

/** The batch's JSON; its bytes were read (at most MAX_BODY_BYTES) by the API's bounded reader. */
export async function readBatchBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new EdgecronError("invalid_json", "body: must be a JSON array of {destination, headers, body}");
  }
}

/** The items of a batch body; a 400 names every item that is not `{destination, headers?, body?}`. */
export function batchItemsOf(value: unknown): BatchItem[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_BATCH_MESSAGES) {
    throw badRequest([
      { header: "body", message: `must be a JSON array of 1 to ${MAX_BATCH_MESSAGES} messages` },
    ]);
  }
  const errors: HeaderError[] = [];
  const items = value.map((raw, index): BatchItem => {
    const item = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const headers = new Headers();
    if (typeof item.destination !== "string")
      errors.push({ header: `[${index}] destination`, message: "must be a string" });
    if (item.queue !== undefined && (typeof item.queue !== "string" || !isQueueName(item.queue)))
      errors.push({ header: `[${index}] queue`, message: QUEUE_NAME_MESSAGE });
    if (item.body !== undefined && typeof item.body !== "string")
      errors.push({ header: `[${index}] body`, message: "must be a string" });
    // The one header-map validator: an array, a non-string value or a bad name is named, never coerced.
    const checked = headerMapIssues(item.headers ?? {});
    for (const issue of checked.issues)
      errors.push({ header: [`[${index}] headers`, ...issue.path].join("."), message: issue.message });
    for (const [name, headerValue] of Object.entries(checked.headers ?? {})) headers.set(name, headerValue);
    const body = new TextEncoder().encode(typeof item.body === "string" ? item.body : "");
    return {
      destination: typeof item.destination === "string" ? item.destination : "",
      headers,
      body,
      queueName: typeof item.queue === "string" ? item.queue : null,
    };
  });
  if (errors.length > 0) throw badRequest(errors);
  return items;
}
