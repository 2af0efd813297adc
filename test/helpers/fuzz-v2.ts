// The fuzz suite's /v2 (QStash-compatible) cases, one per route of src/api/qstash and per field:
// its path segments, its `Upstash-*` headers, its query filters and its JSON body fields.

import { type Json, shuffled, withValue } from "./fuzz-schema";
import type { FuzzCase } from "./fuzz-v1";

const DESTINATION = "https://example.com/fuzz";
const HUGE = "a".repeat(150_000);
/** Header values a request can carry (no CR, LF or non-Latin-1: fetch refuses those itself). */
const HEADER_VALUES = [
  "",
  "x".repeat(9_000),
  "\u0001control",
  "-1",
  "99999999999999",
  "1e999",
  "ÿþ",
  "not-a-thing",
];
const SEGMENT_VALUES = [
  "x".repeat(3_000),
  "%F0%9F%98%80",
  "a%0D%0Ab",
  "%00",
  "..%2F..",
  "ftp:%2F%2Fx",
  "http:%2F%2Fvm..%2F",
];
const QUERY_VALUES = ["", "x".repeat(5_000), "%F0%9F%98%80", "a%0D%0Ab", "-1", "1e999", "ÿ"];
const JSON_VALUES: Json[] = ["", {}, [], null, 12345, true, HUGE, "😀\u202e", "a\r\nb", "\ud800", -1, 1e21];

/** Headers of a message: each alone, on a publish that is otherwise valid. */
const MESSAGE_HEADERS = [
  "Upstash-Delay",
  "Upstash-Not-Before",
  "Upstash-Retries",
  "Upstash-Retry-Delay",
  "Upstash-Timeout",
  "Upstash-Method",
  "Upstash-Deduplication-Id",
  "Upstash-Content-Based-Deduplication",
  "Upstash-Callback",
  "Upstash-Failure-Callback",
  "Upstash-Flow-Control-Key",
  "Upstash-Flow-Control-Value",
  "Upstash-Label",
  "Upstash-Forward-X-Fuzz",
  "Upstash-Callback-Forward-X-Fuzz",
];

interface BodyRoute {
  method: string;
  path: string;
  base: Json;
  fields: string[];
}

const BODY_ROUTES: BodyRoute[] = [
  {
    method: "POST",
    path: "/v2/batch",
    base: [{ destination: DESTINATION, headers: { "upstash-delay": "1d" }, body: "x" }],
    fields: ["0.destination", "0.headers", "0.headers.upstash-delay", "0.body", "0.queue"],
  },
  {
    method: "POST",
    path: "/v2/queues",
    base: { queueName: "fuzz-q", parallelism: 1 },
    fields: ["queueName", "parallelism"],
  },
  {
    method: "POST",
    path: "/v2/topics/fuzz-group/endpoints",
    base: { endpoints: [{ name: "a", url: DESTINATION }] },
    fields: ["endpoints", "endpoints.0", "endpoints.0.name", "endpoints.0.url"],
  },
  {
    method: "POST",
    path: "/v2/wait/fuzz-event",
    base: {
      url: DESTINATION,
      timeout: "1d",
      step: { stepId: 1, stepName: "w", stepType: "Wait" },
      timeoutHeaders: { "Upstash-Workflow-RunId": ["wfr_fuzz"] },
    },
    fields: [
      "url",
      "timeout",
      "timeoutUrl",
      "step",
      "timeoutHeaders",
      "timeoutHeaders.Upstash-Workflow-RunId",
      "timeoutHeaders.X-Fuzz",
    ],
  },
];

const QUERY_ROUTES: [method: string, path: string, names: string[]][] = [
  ["DELETE", "/v2/messages", ["label", "url", "fromDate", "topicName", "messageIds", "count"]],
  ["GET", "/v2/dlq", ["url", "responseStatus", "dlqIds", "count", "cursor", "fromDate"]],
  ["DELETE", "/v2/dlq", ["label", "dlqIds", "toDate"]],
  ["POST", "/v2/dlq/retry", ["url", "dlqIds", "scheduleId"]],
  ["GET", "/v2/events", ["state", "messageId", "count", "host"]],
  ["GET", "/v2/logs", ["state", "path", "cursor"]],
  ["GET", "/v2/workflows/events", ["workflowRunId", "state", "workflowUrl", "count", "cursor", "groupBy"]],
  ["DELETE", "/v2/workflows/runs", ["workflowRunIds"]],
  ["POST", "/v2/workflows/dlq/resume", ["workflowRunId", "workflowCreatedAt", "dlqIds"]],
  ["DELETE", "/v2/workflows/dlq", ["workflowUrl", "failureFunctionState"]],
];

const SEGMENT_ROUTES: [method: string, template: string, name: string][] = [
  ["POST", "/v2/publish/{}", "destination"],
  ["POST", "/v2/enqueue/{}/https://example.com/fuzz", "queue"],
  ["POST", "/v2/schedules/{}", "destination"],
  ["GET", "/v2/messages/{}", "messageId"],
  ["DELETE", "/v2/messages/{}", "messageId"],
  ["POST", "/v2/messages/{}/retry", "messageId"],
  ["GET", "/v2/schedules/{}", "scheduleId"],
  ["DELETE", "/v2/schedules/{}", "scheduleId"],
  ["PATCH", "/v2/schedules/{}/pause", "scheduleId"],
  ["GET", "/v2/queues/{}", "queue"],
  ["DELETE", "/v2/queues/{}", "queue"],
  ["GET", "/v2/topics/{}", "group"],
  ["DELETE", "/v2/topics/{}", "group"],
  ["GET", "/v2/flowControl/{}", "key"],
  ["POST", "/v2/flowControl/{}/pause", "key"],
  ["GET", "/v2/dlq/{}", "dlqId"],
  ["DELETE", "/v2/dlq/{}", "dlqId"],
  ["POST", "/v2/notify/{}", "eventId"],
  ["DELETE", "/v2/workflows/runs/{}", "runId"],
  ["GET", "/v2/workflows/runs/{}", "runId"],
  ["POST", "/v2/workflows/dlq/callback/{}", "dlqId"],
  ["GET", "/v2/waiters/{}", "eventId"],
];

/** Every /v2 case, `perField` values per field. */
export function v2Cases(key: string, random: () => number, perField: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const pick = <T>(values: readonly T[]) => shuffled(values, random).slice(0, perField);
  for (const route of ["/v2/publish/https://example.com/fuzz", "/v2/schedules/https://example.com/fuzz"]) {
    const schedule = route.includes("schedules");
    for (const header of [...MESSAGE_HEADERS, ...(schedule ? ["Upstash-Cron", "Upstash-Schedule-Id"] : [])]) {
      for (const value of pick(HEADER_VALUES)) {
        const headers: Record<string, string> = { "content-type": "text/plain", [header]: value };
        if (schedule && header !== "Upstash-Cron") headers["Upstash-Cron"] = "0 9 * * *";
        // The key and its value go together: the other one is given valid, so only this one is at fault.
        if (header === "Upstash-Flow-Control-Key") headers["Upstash-Flow-Control-Value"] = "parallelism=1";
        if (header === "Upstash-Flow-Control-Value") headers["Upstash-Flow-Control-Key"] = "fuzz-key";
        cases.push({
          label: `${route} ${header}=${value.slice(0, 20)}`,
          method: "POST",
          path: route,
          token: key,
          headers,
          body: "x",
          field: header,
          mustRefuse: false,
        });
      }
    }
  }
  cases.push({
    label: "publish huge body",
    method: "POST",
    path: "/v2/publish/https://example.com/fuzz",
    token: key,
    headers: { "content-type": "text/plain" },
    body: HUGE,
    field: "body",
    mustRefuse: true,
  });
  for (const route of BODY_ROUTES) {
    for (const field of route.fields) {
      for (const value of pick(JSON_VALUES)) {
        cases.push({
          label: `${route.path} ${field}=${JSON.stringify(value).slice(0, 20)}`,
          method: route.method,
          path: route.path,
          token: key,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(withValue(route.base, field, value)),
          field: field.split(".").at(-1) ?? field,
          mustRefuse: false,
        });
      }
    }
    for (const whole of pick(JSON_VALUES)) {
      cases.push({
        label: `${route.path} body=${JSON.stringify(whole).slice(0, 20)}`,
        method: route.method,
        path: route.path,
        token: key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(whole),
        mustRefuse: false,
      });
    }
  }
  for (const [method, path, names] of QUERY_ROUTES) {
    for (const name of names) {
      for (const value of pick(QUERY_VALUES)) {
        const filter = name !== "count" && name !== "cursor";
        cases.push({
          label: `${method} ${path}?${name}=${value.slice(0, 20)}`,
          method,
          path: `${path}?${name}=${value}`,
          token: key,
          field: name,
          mustRefuse: value === "" && filter,
        });
      }
    }
  }
  for (const [method, template, name] of SEGMENT_ROUTES) {
    for (const value of pick(SEGMENT_VALUES)) {
      cases.push({
        label: `${method} ${template} ${name}=${value.slice(0, 20)}`,
        method,
        path: template.replace("{}", value),
        token: key,
        mustRefuse: false,
      });
    }
  }
  return cases;
}
