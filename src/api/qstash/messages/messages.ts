// GET /v2/messages/{id}, DELETE /v2/messages/{id} and DELETE /v2/messages (by ids, by filter,
// or all): a message is its job; cancelling deletes the job, which cancels its pending runs.
import { Hono } from "hono";
import { saveJobVersion } from "../../../service/job-writes";
import { listTenantJobs } from "../../../service/jobs/read-jobs";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { findMessageJob } from "../../../service/qstash/messages";
import { shardOfStoredJob } from "../../../service/run-history";
import { runMessageNow } from "../../../service/start-work";
import type { AppEnv } from "../../http/app-env";
import { EdgecronError } from "../../http/problem";
import { badRequest, notFound } from "../errors";
import { bulkQueryOf, CANCEL_ROUTE } from "../filters";
import { MESSAGE_JOB_PREFIX } from "./message-job";
import { isMessageJob, messageFactsOf, messageView } from "./message-view";

/** Jobs a filter cancel scans at most per request (newest first). */
const MAX_SCANNED_JOBS = 5_000;
const SCAN_PAGE = 200;

export const messages = new Hono<AppEnv>();

async function loadMessage(env: Env, tenantId: string, id: string): Promise<StoredJob | null> {
  const job = await findMessageJob(env, tenantId, id);
  return job === null || job.status === "DELETED" || !isMessageJob(job) ? null : job;
}

messages.get("/:id", async (c) => {
  const job = await loadMessage(c.env, c.get("tenantId"), c.req.param("id"));
  if (job === null) throw notFound(`message ${c.req.param("id")} not found`);
  return c.json(messageView(job));
});

messages.delete("/:id", async (c) => {
  const job = await loadMessage(c.env, c.get("tenantId"), c.req.param("id"));
  if (job === null) throw notFound(`message ${c.req.param("id")} not found`);
  await saveJobVersion(c.env, job, { status: "DELETED" }, Date.now());
  return c.json({ cancelled: 1 });
});

// Runs a waiting message now: its delay's instant, or a retry waiting out its backoff. The shard
// moves when the same run fires (its idempotency key unchanged), so nothing is delivered twice.
messages.post("/:id/retry", async (c) => {
  const tenantId = c.get("tenantId");
  const id = c.req.param("id");
  const job = await loadMessage(c.env, tenantId, id);
  if (job === null) throw notFound(`message ${id} not found`);
  const nothingWaiting = badRequest([
    {
      header: "messageId",
      message: `message ${id} has no waiting delivery (delivered, in flight or dead-lettered)`,
    },
  ]);
  const shard = await shardOfStoredJob(c.env, tenantId, job.id);
  const result = await runMessageNow(c.env, { id: job.id, tenantId, shard });
  if (!result.ok && result.code === "job_not_found")
    throw new EdgecronError("shard_unavailable", `message ${id} is not on its shard yet: try again`);
  if (!result.ok && result.code === "job_not_active")
    throw badRequest([{ header: "messageId", message: `message ${id} is paused: resume it first` }]);
  if (!result.ok) throw nothingWaiting;
  return c.json({ messageId: job.id });
});

messages.delete("/", async (c) => {
  const query = bulkQueryOf(new URL(c.req.url), CANCEL_ROUTE);
  const tenantId = c.get("tenantId");
  const nowMs = Date.now();
  const selected = (job: StoredJob) => query.matches(messageFactsOf(job));
  // Named ids still pass the filters: a request naming both never cancels more than either selects.
  const jobs =
    query.ids.length > 0
      ? (await Promise.all(query.ids.map((id) => loadMessage(c.env, tenantId, id)))).filter(
          (job): job is StoredJob => job !== null && selected(job),
        )
      : await pendingMessages(c.env, tenantId, selected);
  for (const job of jobs) await saveJobVersion(c.env, job, { status: "DELETED" }, nowMs);
  return c.json({ cancelled: jobs.length });
});

/** The tenant's messages not yet delivered (ACTIVE jobs) that `keep` selects, newest first. */
async function pendingMessages(
  env: Env,
  tenantId: string,
  keep: (job: StoredJob) => boolean,
): Promise<StoredJob[]> {
  const found: StoredJob[] = [];
  let beforeId: string | undefined;
  for (let scanned = 0; scanned < MAX_SCANNED_JOBS; scanned += SCAN_PAGE) {
    const page = await listTenantJobs(env, tenantId, {
      status: "ACTIVE",
      namePrefix: MESSAGE_JOB_PREFIX,
      beforeId,
      limit: SCAN_PAGE,
    });
    found.push(...page.filter((job) => isMessageJob(job) && keep(job)));
    if (page.length < SCAN_PAGE) break;
    beforeId = page[page.length - 1]?.id;
  }
  return found;
}
