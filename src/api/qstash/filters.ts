// The query filters of the bulk routes (messages cancel, DLQ list/delete/retry, events). Each route
// serves a fixed set of filter names; any other name in the query is refused with a 400 naming it,
// never ignored, because an ignored filter turns a bulk delete into "delete everything". Values
// may repeat (OR within a filter, AND across filters), as the client sends them.
import { badRequest } from "./errors";
import type { HeaderError } from "./headers";

export interface MessageFacts {
  messageId: string;
  url: string;
  labels: readonly string[];
  flowControlKey: string | null;
  queueName: string | null;
  scheduleId: string | null;
  topicName?: string | null;
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

type FilterName =
  | "fromDate"
  | "toDate"
  | "label"
  | "flowControlKey"
  | "messageId"
  | "url"
  | "scheduleId"
  | "queueName"
  | "topicName"
  | "responseStatus"
  | "host"
  | "path"
  | "state";

/** What one route reads from its query: its id list, its filters, and whether it pages. */
export interface BulkRoute {
  idName: "messageIds" | "dlqIds";
  filters: readonly FilterName[];
  pages: boolean;
  maxCount: number;
  defaultCount: number;
}

const SHARED: readonly FilterName[] = ["fromDate", "toDate", "label", "flowControlKey", "url"];
const OWNED_BY: readonly FilterName[] = ["scheduleId", "queueName", "topicName"];

/** GET/DELETE /v2/dlq and POST /v2/dlq/retry: the client's DLQFilterFields. */
export const DLQ_ROUTE: BulkRoute = {
  idName: "dlqIds",
  filters: [...SHARED, ...OWNED_BY, "messageId", "responseStatus"],
  pages: true,
  maxCount: 100,
  defaultCount: 100,
};

/** DELETE /v2/messages: the client's MessageCancelFilterFields; one call cancels every match. */
export const CANCEL_ROUTE: BulkRoute = {
  idName: "messageIds",
  filters: [...SHARED, ...OWNED_BY, "host", "path"],
  pages: false,
  maxCount: 100_000,
  defaultCount: 100_000,
};

/** GET /v2/events and /v2/logs: the client's LogsListFilters (`messageId` is its deprecated form). */
export const EVENTS_ROUTE: BulkRoute = {
  idName: "messageIds",
  filters: [...SHARED, ...OWNED_BY, "host", "path", "state", "messageId"],
  pages: true,
  maxCount: 1000,
  defaultCount: 100,
};

/** Filters the client offers that we hold no data for: refused, saying why. */
const NOT_SERVED: Readonly<Record<string, string>> = {
  callerIp: "the publisher's IP is not recorded, so no entry can be selected by it",
};

/** The states a log event can have (the client's `State`). */
const LOG_STATES = ["CREATED", "ACTIVE", "DELIVERED", "ERROR", "RETRY", "FAILED", "CANCELED", "IN_PROGRESS"];

/** Ids one bulk request may name (each is looked up). */
export const MAX_IDS = 1000;

/** The names this route's query may carry beside its filters. */
function controlNames(route: BulkRoute): string[] {
  return [route.idName, "count", ...(route.pages ? ["cursor"] : [])];
}

/** Every query name the route does not serve, and every empty filter value, as field errors. */
function refusedNames(params: URLSearchParams, route: BulkRoute): HeaderError[] {
  const control = controlNames(route);
  const served = [...control, ...route.filters];
  const errors: HeaderError[] = [];
  for (const name of new Set(params.keys())) {
    const why = NOT_SERVED[name];
    if (why !== undefined) errors.push({ header: name, message: `filter not served: ${why}` });
    else if (!served.includes(name)) {
      errors.push({ header: name, message: `unknown filter; this route serves ${route.filters.join(", ")}` });
    } else if (name !== "count" && name !== "cursor" && params.getAll(name).some((value) => value === "")) {
      errors.push({ header: name, message: "must not be empty" });
    }
  }
  return errors;
}

/** Reads the query of a bulk route. 400 naming every unknown, unserved, empty or bad parameter. */
export function bulkQueryOf(url: URL, route: BulkRoute): BulkQuery {
  const params = url.searchParams;
  const errors = refusedNames(params, route);
  const all = (name: FilterName) => params.getAll(name);
  const count = readCount(params.get("count"), route, errors);
  const fromMs = readDate(params, "fromDate", errors);
  const toMs = readDate(params, "toDate", errors);
  const statuses = readStatuses(all("responseStatus"), errors);
  const states = all("state");
  const badState = states.find((state) => !LOG_STATES.includes(state));
  if (badState !== undefined)
    errors.push({ header: "state", message: `must be one of ${LOG_STATES.join(", ")}` });
  const ids = params.getAll(route.idName);
  if (ids.length > MAX_IDS)
    errors.push({ header: route.idName, message: `at most ${MAX_IDS} ids per request` });
  if (errors.length > 0) throw badRequest(errors);
  const matches = matcherOf({
    urls: all("url"),
    labels: all("label"),
    keys: all("flowControlKey"),
    messageIds: all("messageId"),
    scheduleIds: all("scheduleId"),
    queueNames: all("queueName"),
    topicNames: all("topicName"),
    hosts: all("host"),
    paths: all("path"),
    statuses,
    states,
    fromMs,
    toMs,
  });
  return { ids, count, cursor: route.pages ? params.get("cursor") || null : null, matches };
}

interface Selection {
  urls: string[];
  labels: string[];
  keys: string[];
  messageIds: string[];
  scheduleIds: string[];
  queueNames: string[];
  topicNames: string[];
  hosts: string[];
  paths: string[];
  statuses: number[];
  states: string[];
  fromMs: number | null;
  toMs: number | null;
}

/** An empty list selects everything for that field; a value the entry lacks never matches. */
function oneOf<T>(wanted: readonly T[], value: T | null | undefined): boolean {
  return wanted.length === 0 || (value !== null && value !== undefined && wanted.includes(value));
}

function matcherOf(selection: Selection): (facts: MessageFacts) => boolean {
  const { fromMs, toMs } = selection;
  return (facts) => {
    const target = URL.canParse(facts.url) ? new URL(facts.url) : null;
    return (
      oneOf(selection.urls, facts.url) &&
      (selection.labels.length === 0 || selection.labels.some((label) => facts.labels.includes(label))) &&
      oneOf(selection.keys, facts.flowControlKey) &&
      oneOf(selection.messageIds, facts.messageId) &&
      oneOf(selection.scheduleIds, facts.scheduleId) &&
      oneOf(selection.queueNames, facts.queueName) &&
      oneOf(selection.topicNames, facts.topicName) &&
      oneOf(selection.hosts, target?.host) &&
      oneOf(selection.paths, target?.pathname) &&
      oneOf(selection.statuses, facts.responseStatus) &&
      oneOf(selection.states, facts.state) &&
      (fromMs === null || facts.createdAtMs >= fromMs) &&
      (toMs === null || facts.createdAtMs <= toMs)
    );
  };
}

function readCount(value: string | null, route: BulkRoute, errors: HeaderError[]): number {
  if (value === null || value === "") return route.defaultCount;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1) {
    errors.push({ header: "count", message: `must be an integer from 1 to ${route.maxCount}` });
    return route.defaultCount;
  }
  return Math.min(Number(value), route.maxCount);
}

function readDate(
  params: URLSearchParams,
  name: "fromDate" | "toDate",
  errors: HeaderError[],
): number | null {
  const value = params.get(name);
  if (value === null || value === "") return null;
  if (/^\d{1,15}$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (!Number.isNaN(ms)) return ms;
  errors.push({ header: name, message: "must be a unix time in milliseconds" });
  return null;
}

function readStatuses(values: string[], errors: HeaderError[]): number[] {
  if (values.some((value) => !/^[1-5]\d\d$/.test(value))) {
    errors.push({ header: "responseStatus", message: "must be an HTTP status code (100 to 599)" });
  }
  return values.map(Number);
}
