// GET /v2/messages/{id}, DELETE /v2/messages/{id} and DELETE /v2/messages (by ids, by filter,
// or all): a message is its job; cancelling deletes the job, which cancels its pending runs.
import { Hono } from "hono";
import { jobStores } from "../../db/databases";
import { findStoredJob, listJobsAcross } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { saveJobVersion } from "../../service/job-writes";
import type { AppEnv } from "../http/app-env";
import { notFound } from "./errors";
import { bulkQueryOf, CANCEL_ROUTE } from "./filters";
import { MESSAGE_JOB_PREFIX } from "./message-job";
import { isMessageJob, messageFactsOf, messageView } from "./message-view";

/** Jobs a filter cancel scans at most per request (newest first). */
const MAX_SCANNED_JOBS = 5_000;
const SCAN_PAGE = 200;

export const messages = new Hono<AppEnv>();

async function loadMessage(env: Env, tenantId: string, id: string): Promise<StoredJob | null> {
  const job = await findStoredJob(jobStores(env), tenantId, id);
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

// A delay is its job's one instant and an edit reschedules strictly after the shard applies it,
// so "now" could leave no instant at all; refused rather than risk losing the delivery.
messages.post("/:id/retry", (c) => {
  throw notFound(
    `POST /v2/messages/${c.req.param("id")}/retry: running a waiting message now is not served (see docs/QSTASH.md)`,
  );
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
    const page = await listJobsAcross(jobStores(env), tenantId, {
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
