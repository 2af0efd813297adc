// The query filters of the bulk routes (messages cancel, DLQ list/delete/retry, events): each may
// repeat (OR within a filter, AND across filters), as the client sends them.
import { EdgecronError } from "../problem";

export interface MessageFacts {
  url: string;
  labels: readonly string[];
  flowControlKey: string | null;
  createdAtMs: number;
  responseStatus?: number | null;
  state?: string;
}

export interface BulkQuery {
  ids: string[];
  count: number;
  cursor: string | null;
  matches: (facts: MessageFacts) => boolean;
}

/** Ids one bulk request may name (each is looked up). */
export const MAX_IDS = 1000;

/** Filters we hold no data for (URL groups, queues, schedules made elsewhere, caller IPs): nothing matches them. */
const UNMATCHED_FILTERS = ["topicName", "queueName", "scheduleId", "callerIp", "api", "endpointName"];

/** Reads the query of a bulk route; `idName` is `messageIds` or `dlqIds`. 400 on a bad count or date. */
export function bulkQueryOf(url: URL, idName: string, maxCount: number, defaultCount = 100): BulkQuery {
  const params = url.searchParams;
  const all = (name: string) => params.getAll(name).filter((value) => value !== "");
  const count = readCount(params.get("count"), maxCount, defaultCount);
  const fromMs = readDate(params.get("fromDate"), "fromDate");
  const toMs = readDate(params.get("toDate"), "toDate");
  const urls = all("url");
  const labels = all("label");
  const keys = all("flowControlKey");
  const hosts = all("host");
  const paths = all("path");
  const statuses = all("responseStatus").map(Number);
  const states = all("state");
  const unmatched = UNMATCHED_FILTERS.some((name) => all(name).length > 0);
  const matches = (facts: MessageFacts): boolean => {
    if (unmatched) return false;
    const target = URL.canParse(facts.url) ? new URL(facts.url) : null;
    return (
      (urls.length === 0 || urls.includes(facts.url)) &&
      (labels.length === 0 || labels.some((label) => facts.labels.includes(label))) &&
      (keys.length === 0 || (facts.flowControlKey !== null && keys.includes(facts.flowControlKey))) &&
      (hosts.length === 0 || (target !== null && hosts.includes(target.host))) &&
      (paths.length === 0 || (target !== null && paths.includes(target.pathname))) &&
      (fromMs === null || facts.createdAtMs >= fromMs) &&
      (toMs === null || facts.createdAtMs <= toMs) &&
      (statuses.length === 0 || (facts.responseStatus != null && statuses.includes(facts.responseStatus))) &&
      (states.length === 0 || (facts.state !== undefined && states.includes(facts.state)))
    );
  };
  const ids = all(idName);
  if (ids.length > MAX_IDS)
    throw new EdgecronError("validation_failed", `${idName}: at most ${MAX_IDS} ids per request`);
  return { ids, count, cursor: params.get("cursor") || null, matches };
}

function readCount(value: string | null, maxCount: number, defaultCount: number): number {
  if (value === null || value === "") return defaultCount;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1) {
    throw new EdgecronError("validation_failed", `count: must be an integer from 1 to ${maxCount}`);
  }
  return Math.min(Number(value), maxCount);
}

function readDate(value: string | null, name: string): number | null {
  if (value === null || value === "") return null;
  if (/^\d{1,15}$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new EdgecronError("validation_failed", `${name}: must be a unix time in milliseconds`);
  return ms;
}
