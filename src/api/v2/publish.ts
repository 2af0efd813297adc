// POST /v2/publish/{destination} and POST /v2/batch: each message becomes a one-shot job, stored
// in D1 before the 2xx (durable), then pushed to its shard (the outbox sweep re-sends what the
// push missed), exactly as a /v1 create.
import { Hono } from "hono";
import { findJobByIdempotencyKey, insertJobs, type StoredJob } from "../../db/jobs";
import { MAX_BODY_BYTES } from "../body";
import { pushAndMarkSynced } from "../job-service";
import { EdgecronError } from "../problem";
import type { AppEnv } from "../types";
import { rawDestinationOf } from "./destination";
import { badRequest } from "./errors";
import type { HeaderError } from "./headers";
import {
  duplicateAnswer,
  type PreparedMessage,
  type PublishedMessage,
  prepareMessage,
} from "./message-service";

export const MAX_BATCH_MESSAGES = 1000;

export const publish = new Hono<AppEnv>();

publish.post("/publish/*", async (c) => {
  const nowMs = Date.now();
  const prepared = await prepareMessage({
    env: c.env,
    tenantId: c.get("tenantId"),
    destination: rawDestinationOf(c.req.url, "/v2/publish/"),
    headers: c.req.raw.headers,
    body: new Uint8Array(await c.req.arrayBuffer()),
    nowMs,
  });
  const [answer] = await storeMessages(c.env, [prepared]);
  return c.json(answer, 201);
});

publish.post("/enqueue/*", () => {
  throw new EdgecronError(
    "not_found",
    "Queues (/v2/enqueue, /v2/queues) are not served by edgecron: publish with Upstash-Flow-Control-Key and parallelism=N instead",
  );
});

interface BatchItem {
  destination: string;
  headers: Headers;
  body: Uint8Array;
}

publish.post("/batch", async (c) => {
  const nowMs = Date.now();
  const items = batchItemsOf(await readBatchBody(c.req.raw));
  const prepared: PreparedMessage[] = [];
  const errors: HeaderError[] = [];
  for (const [index, item] of items.entries()) {
    try {
      prepared.push(
        await prepareMessage({
          env: c.env,
          tenantId: c.get("tenantId"),
          ...item,
          nowMs,
          errorPrefix: `[${index}] `,
        }),
      );
    } catch (error) {
      if (!(error instanceof EdgecronError) || error.errors === undefined) throw error;
      errors.push(...error.errors.map((field) => ({ header: field.path, message: field.message })));
    }
  }
  if (errors.length > 0) throw badRequest(errors);
  return c.json(await storeMessages(c.env, prepared), 201);
});

async function readBatchBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (new TextEncoder().encode(text).byteLength > MAX_BODY_BYTES) {
    throw new EdgecronError("payload_too_large", "The batch body is over 1 MiB");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new EdgecronError("invalid_json", "body: must be a JSON array of {destination, headers, body}");
  }
}

/** The items of a batch body; a 400 names every item that is not `{destination, headers?, body?}`. */
function batchItemsOf(value: unknown): BatchItem[] {
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
    if (item.queue !== undefined)
      errors.push({ header: `[${index}] queue`, message: "queues are not served by edgecron" });
    if (item.body !== undefined && typeof item.body !== "string")
      errors.push({ header: `[${index}] body`, message: "must be a string" });
    if (item.headers !== undefined && (typeof item.headers !== "object" || item.headers === null)) {
      errors.push({ header: `[${index}] headers`, message: "must be an object of header names to strings" });
    }
    for (const [name, headerValue] of Object.entries((item.headers ?? {}) as Record<string, unknown>)) {
      try {
        headers.set(name, String(headerValue));
      } catch {
        errors.push({ header: `[${index}] headers.${name}`, message: "is not a valid header" });
      }
    }
    const body = new TextEncoder().encode(typeof item.body === "string" ? item.body : "");
    return { destination: typeof item.destination === "string" ? item.destination : "", headers, body };
  });
  if (errors.length > 0) throw badRequest(errors);
  return items;
}

/**
 * Inserts the new jobs in one D1 batch, then pushes them. A message whose key another message
 * of the same batch took answers as that one's duplicate; a concurrent publish that took the
 * key first is found again (the unique index lets exactly one in).
 */
async function storeMessages(env: Env, prepared: readonly PreparedMessage[]): Promise<PublishedMessage[]> {
  const byKey = new Map<string, StoredJob>();
  const answers: PublishedMessage[] = [];
  const jobs: StoredJob[] = [];
  for (const message of prepared) {
    if (message.kind === "duplicate") {
      answers.push(message.answer);
      continue;
    }
    const key = message.job.idempotencyKey;
    const earlier = key === null ? undefined : byKey.get(key);
    if (earlier !== undefined) {
      answers.push(duplicateAnswer(earlier));
      continue;
    }
    if (key !== null) byKey.set(key, message.job);
    jobs.push(message.job);
    answers.push(message.answer);
  }
  try {
    await insertJobs(env.DB, jobs);
  } catch (error) {
    const single = jobs.length === 1 ? jobs[0] : undefined;
    const winner =
      single?.idempotencyKey == null
        ? null
        : await findJobByIdempotencyKey(env.DB, single.tenantId, single.idempotencyKey);
    if (winner === null) throw error;
    return answers.map((answer) => (answer.messageId === single?.id ? duplicateAnswer(winner) : answer));
  }
  await pushAndMarkSynced(env, jobs);
  return answers;
}
