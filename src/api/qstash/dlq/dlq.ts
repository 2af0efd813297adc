// The DLQ routes on our dead letters: a QStash DLQ entry is a dead letter of a /v2 job not yet
// redriven; retry is a redrive (one new attempt of the same message), delete removes the letter.
import { Hono } from "hono";
import { qstashMessageId } from "../../../core/qstash/delivery";
import {
  deleteQstashDeadLetters,
  letterPayloadOf,
  type QstashDeadLetter,
  qstashDeadLetterPage,
  qstashDeadLettersByIds,
  readQstashDeadLetter,
} from "../../../service/qstash/dead-letters";
import { redriveDeadLetter } from "../../../service/redrive";
import type { AppEnv } from "../../http/app-env";
import { decodeTimeCursor, encodeCursor } from "../../http/cursor";
import { notFound } from "../errors";
import { type BulkQuery, bulkQueryOf, DLQ_ROUTE, type MessageFacts } from "../filters";
import { headerLists, messageFactsOf, messageView } from "../messages/message-view";

export const dlq = new Hono<AppEnv>();

export type DlqEntry = QstashDeadLetter;

/** A dead letter as the client's `DlqMessage`: the message, plus the failed response. */
export function dlqMessageView({ letter, job }: DlqEntry) {
  const payload = letterPayloadOf(letter);
  const scheduleId = job.spec.qstash?.schedule_id;
  return {
    ...messageView(job),
    // A schedule's fires are messages of their own: the run is the message (qstashMessageId).
    messageId: messageIdOf({ letter, job }),
    ...(scheduleId ? { scheduleId } : {}),
    ...(payload.headers === undefined ? {} : { header: headerLists(payload.headers) }),
    ...(typeof payload.body === "string" ? { body: payload.body } : {}),
    dlqId: letter.id,
    createdAt: letter.created_at_ms,
    responseStatus: letter.target_status ?? 0,
    responseHeader: {},
    responseBody: letter.last_error ?? letter.reason,
  };
}

export function messageIdOf({ letter, job }: DlqEntry): string {
  return qstashMessageId(job.spec.qstash ?? {}, { jobId: job.id, runId: letter.run_id });
}

/** One page of the DLQ for a bulk query: by ids, or filtered, from the cursor. */
export async function dlqPage(
  env: Env,
  tenantId: string,
  query: BulkQuery,
): Promise<{ entries: DlqEntry[]; cursor: string | null }> {
  if (query.ids.length > 0) {
    const named = await qstashDeadLettersByIds(env, tenantId, query.ids);
    return { entries: named.filter((entry) => query.matches(entryFacts(entry))), cursor: null };
  }
  const { rows, letters } = await qstashDeadLetterPage(env, tenantId, {
    cursor: decodeTimeCursor(query.cursor ?? undefined),
    limit: query.count + 1,
  });
  const page = rows.slice(0, query.count);
  const last = page[page.length - 1];
  const cursor =
    rows.length > query.count && last !== undefined ? encodeCursor([last.created_at_ms, last.id]) : null;
  // The extra row read to tell whether a next page exists is not part of this one.
  const inPage = new Set(page.map((row) => row.id));
  const entries = letters.filter((entry) => inPage.has(entry.letter.id) && query.matches(entryFacts(entry)));
  return { entries, cursor };
}

/** A dead letter as the filters see it: its message id (a schedule fire's is its run), when it died, how. */
function entryFacts(entry: DlqEntry): MessageFacts {
  return {
    ...messageFactsOf(entry.job),
    messageId: messageIdOf(entry),
    createdAtMs: entry.letter.created_at_ms,
    responseStatus: entry.letter.target_status,
  };
}

dlq.get("/", async (c) => {
  const query = bulkQueryOf(new URL(c.req.url), DLQ_ROUTE);
  const { entries, cursor } = await dlqPage(c.env, c.get("tenantId"), query);
  return c.json({ messages: entries.map(dlqMessageView), ...(cursor === null ? {} : { cursor }) });
});

async function loadEntry(env: Env, tenantId: string, id: string): Promise<DlqEntry> {
  const entry = await readQstashDeadLetter(env, tenantId, id);
  if (entry === null) throw notFound(`dlq message ${id} not found`);
  return entry;
}

dlq.get("/:dlqId", async (c) =>
  c.json(dlqMessageView(await loadEntry(c.env, c.get("tenantId"), c.req.param("dlqId")))),
);

dlq.delete("/:dlqId", async (c) => {
  const entry = await loadEntry(c.env, c.get("tenantId"), c.req.param("dlqId"));
  const deleted = await deleteQstashDeadLetters(c.env, c.get("tenantId"), [entry.letter.id]);
  return c.json({ deleted });
});

dlq.delete("/", async (c) => {
  const query = bulkQueryOf(new URL(c.req.url), DLQ_ROUTE);
  const { entries, cursor } = await dlqPage(c.env, c.get("tenantId"), query);
  const ids = entries.map((entry) => entry.letter.id);
  const deleted = await deleteQstashDeadLetters(c.env, c.get("tenantId"), ids);
  return c.json({ deleted, ...(cursor === null ? {} : { cursor }) });
});

dlq.post("/retry", async (c) => {
  const query = bulkQueryOf(new URL(c.req.url), DLQ_ROUTE);
  const tenantId = c.get("tenantId");
  const { entries, cursor } = await dlqPage(c.env, tenantId, query);
  if (query.ids.length === 1 && entries.length === 0) throw notFound(`dlq message ${query.ids[0]} not found`);
  const responses: { messageId: string }[] = [];
  for (const entry of entries) {
    await redriveDeadLetter(c.env, tenantId, entry.letter);
    responses.push({ messageId: messageIdOf(entry) });
  }
  return c.json({ cursor: cursor ?? "", responses });
});
