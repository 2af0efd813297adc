// POST /v2/publish/{destination} and POST /v2/batch: each message becomes a one-shot job, stored
// in D1 before the 2xx (durable), then pushed to its shard (the outbox sweep re-sends what the
// push missed), exactly as a /v1 create.
import { Hono } from "hono";
import { storeNewJobs } from "../../../service/jobs/store-new-jobs";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { jobWithIdempotencyKey } from "../../../service/qstash/messages";
import { ensureQueues, queueParallelism } from "../../../service/qstash/queues";
import type { AppEnv } from "../../http/app-env";
import { EdgecronError } from "../../http/problem";
import { checkDestination, rawDestinationOf } from "../destination";
import { badRequest } from "../errors";
import type { HeaderError } from "../headers";
import { checkQueueName } from "../queues/queues";
import { isUrlGroupName, prepareDestinationMessages } from "../url-groups/url-group-publish";
import { recordWorkflowMessages, type WorkflowRecord } from "../workflow/workflow-message";
import { type BatchItem, batchItemsOf, readBatchBody } from "./batch-items";
import { duplicateAnswer, type PreparedMessage, type PublishedMessage } from "./message-service";

export const publish = new Hono<AppEnv>();

publish.post("/publish/*", async (c) => {
  const nowMs = Date.now();
  const destination = rawDestinationOf(c.req.url, "/v2/publish/");
  const prepared = await prepareDestinationMessages({
    env: c.env,
    tenantId: c.get("tenantId"),
    destination,
    headers: c.req.raw.headers,
    body: new Uint8Array(await c.req.arrayBuffer()),
    nowMs,
  });
  const answers = await storeMessages(c.env, prepared, { tenantId: c.get("tenantId"), nowMs });
  // A URL group answers one entry per endpoint, as QStash does.
  return c.json(isGroupPublish(destination) ? answers : answers[0], 201);
});

// The queue name is the first segment after /v2/enqueue/; the destination is the rest, raw.
publish.post("/enqueue/:queue/*", async (c) => {
  const nowMs = Date.now();
  const tenantId = c.get("tenantId");
  const name = checkQueueName(c.req.param("queue"), "queue");
  const parallelism = await queueParallelism(c.env, tenantId, name);
  const destination = rawDestinationOf(c.req.url, `/v2/enqueue/${name}/`);
  const prepared = await prepareDestinationMessages({
    env: c.env,
    tenantId,
    destination,
    headers: c.req.raw.headers,
    body: new Uint8Array(await c.req.arrayBuffer()),
    nowMs,
    queue: { name, parallelism },
  });
  const answers = await storeMessages(c.env, prepared, { tenantId, nowMs, queueNames: [name] });
  return c.json(isGroupPublish(destination) ? answers : answers[0], 201);
});

publish.post("/batch", async (c) => {
  const nowMs = Date.now();
  const tenantId = c.get("tenantId");
  const items = batchItemsOf(await readBatchBody(c));
  const queues = await queueLimits(c.env, tenantId, items);
  const prepared: PreparedMessage[][] = [];
  const errors: HeaderError[] = [];
  for (const [index, { queueName, ...item }] of items.entries()) {
    const queue =
      queueName === null ? undefined : { name: queueName, parallelism: queues.get(queueName) ?? 1 };
    try {
      prepared.push(
        await prepareDestinationMessages({
          env: c.env,
          tenantId,
          ...item,
          nowMs,
          errorPrefix: `[${index}] `,
          queue,
        }),
      );
    } catch (error) {
      if (!(error instanceof EdgecronError) || error.errors === undefined) throw error;
      errors.push(...error.errors.map((field) => ({ header: field.path, message: field.message })));
    }
  }
  if (errors.length > 0) throw badRequest(errors);
  const answers = await storeMessages(c.env, prepared.flat(), {
    tenantId,
    nowMs,
    queueNames: [...queues.keys()],
  });
  // One answer per item, in order: a URL group's item is the list of its endpoints' answers.
  let next = 0;
  return c.json(
    items.map((item, index) => {
      const own = answers.slice(next, next + (prepared[index]?.length ?? 0));
      next += own.length;
      return isGroupPublish(item.destination) ? own : own[0];
    }),
    201,
  );
});

/** The destination names a URL group (prepareDestinationMessages found it), not a URL. */
function isGroupPublish(destination: string): boolean {
  return !checkDestination(destination).ok && isUrlGroupName(destination);
}

/** The parallelism of every queue the items name (1 for one that does not exist yet). */
async function queueLimits(
  env: Env,
  tenantId: string,
  items: readonly BatchItem[],
): Promise<Map<string, number>> {
  const limits = new Map<string, number>();
  for (const name of new Set(items.flatMap((item) => (item.queueName === null ? [] : [item.queueName])))) {
    limits.set(name, await queueParallelism(env, tenantId, name));
  }
  return limits;
}

interface StoreContext {
  tenantId: string;
  nowMs: number;
  /** Queues the messages name: created only once every message is good and admitted. */
  queueNames?: readonly string[];
}

/**
 * Admits the new jobs (tenant limits; a refused request stores nothing, not even its queues, as
 * QStash does), inserts them in one D1 batch per database, then pushes them. A message whose key
 * another message of the same batch took answers as that one's duplicate; a concurrent publish
 * that took the key first is found again (the unique index lets exactly one in).
 */
export async function storeMessages(
  env: Env,
  prepared: readonly PreparedMessage[],
  { tenantId, nowMs, queueNames = [] }: StoreContext,
): Promise<PublishedMessage[]> {
  const byKey = new Map<string, StoredJob>();
  const answers: PublishedMessage[] = [];
  const jobs: StoredJob[] = [];
  const workflowRecords: (WorkflowRecord | undefined)[] = [];
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
    workflowRecords.push(message.workflow);
    answers.push(message.answer);
  }
  const single = jobs.length === 1 ? jobs[0] : undefined;
  const stored = await storeNewJobs(env, tenantId, jobs, nowMs, {
    beforeInsert: async () => {
      await ensureQueues(env, tenantId, queueNames, nowMs);
      await recordWorkflowMessages(env, workflowRecords, nowMs);
    },
    onInsertRefused: async () =>
      single?.idempotencyKey == null
        ? null
        : await jobWithIdempotencyKey(env, single.tenantId, single.idempotencyKey),
  });
  if (stored.stored) return answers;
  const winner = stored.duplicate;
  return answers.map((answer) => (answer.messageId === single?.id ? duplicateAnswer(winner) : answer));
}
