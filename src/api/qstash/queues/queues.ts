// /v2/queues: a QStash queue is a named parallelism limit. Enqueued messages carry its
// flow-control key (queueFlowKey), so at most `parallelism` of their calls run at once; delivery
// order within a queue is not kept (the flow gate limits concurrency, it does not serialise).
import { Hono } from "hono";
import {
  listQueueStates,
  type QueueState,
  readQueueState,
  removeQueue,
  saveQueue,
  setQueuePaused,
} from "../../../service/qstash/queues";
import type { AppEnv } from "../../http/app-env";
import { badRequest, notFound } from "../errors";

export const MAX_QUEUE_PARALLELISM = 1000;
const QUEUE_NAME = /^[A-Za-z0-9._-]{1,94}$/;
export const QUEUE_NAME_MESSAGE = "must be 1-94 letters, digits, '.', '_' or '-'";

export function isQueueName(name: string): boolean {
  return QUEUE_NAME.test(name);
}

/** A 400 naming the bad queue name, or the name. */
export function checkQueueName(name: string, field = "queueName"): string {
  if (!QUEUE_NAME.test(name)) throw badRequest([{ header: field, message: QUEUE_NAME_MESSAGE }]);
  return name;
}

export function queueView({ row, paused }: QueueState) {
  return {
    createdAt: row.created_at_ms,
    updatedAt: row.updated_at_ms,
    name: row.name,
    parallelism: row.parallelism,
    lag: 0,
    paused,
  };
}

export const queues = new Hono<AppEnv>();

queues.post("/", async (c) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw badRequest([{ header: "body", message: "must be JSON {queueName, parallelism, paused}" }]);
  }
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const errors: { header: string; message: string }[] = [];
  if (typeof fields.queueName !== "string" || !QUEUE_NAME.test(fields.queueName)) {
    errors.push({ header: "queueName", message: QUEUE_NAME_MESSAGE });
  }
  const parallelism = fields.parallelism ?? 1;
  if (
    typeof parallelism !== "number" ||
    !Number.isInteger(parallelism) ||
    parallelism < 1 ||
    parallelism > MAX_QUEUE_PARALLELISM
  ) {
    errors.push({ header: "parallelism", message: `must be an integer from 1 to ${MAX_QUEUE_PARALLELISM}` });
  }
  if (fields.paused !== undefined && typeof fields.paused !== "boolean")
    errors.push({ header: "paused", message: "must be true or false" });
  if (errors.length > 0) throw badRequest(errors);
  const queue = await saveQueue(
    c.env,
    c.get("tenantId"),
    {
      name: fields.queueName as string,
      parallelism: parallelism as number,
      ...(typeof fields.paused === "boolean" ? { paused: fields.paused } : {}),
    },
    Date.now(),
  );
  return c.json(queueView(queue));
});

queues.get("/", async (c) => {
  return c.json((await listQueueStates(c.env, c.get("tenantId"))).map(queueView));
});

queues.get("/:name", async (c) => {
  const queue = await readQueueState(c.env, c.get("tenantId"), c.req.param("name"));
  if (queue === null) throw notFound(`queue ${c.req.param("name")} not found`);
  return c.json(queueView(queue));
});

queues.delete("/:name", async (c) => {
  if (!(await removeQueue(c.env, c.get("tenantId"), c.req.param("name")))) {
    throw notFound(`queue ${c.req.param("name")} not found`);
  }
  return c.json({ deleted: 1 });
});

// A queue is its flow-control key: pausing holds its messages at their shards (none is lost or
// cancelled, a call in flight finishes), resuming lets them go.
for (const [action, paused] of [
  ["pause", true],
  ["resume", false],
] as const) {
  queues.post(`/:name/${action}`, async (c) => {
    const queue = await setQueuePaused(c.env, c.get("tenantId"), c.req.param("name"), paused);
    if (queue === null) throw notFound(`queue ${c.req.param("name")} not found`);
    return c.json(queueView(queue));
  });
}
