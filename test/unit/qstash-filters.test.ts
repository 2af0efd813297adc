// The bulk-route query parser: each route serves its own filter names, refuses every other name
// (and the ones we hold no data for) with a 400 naming it, and matches exactly what it names.
import { describe, expect, it } from "vitest";
import { EdgecronError } from "../../src/api/http/problem";
import {
  bulkQueryOf,
  CANCEL_ROUTE,
  DLQ_ROUTE,
  EVENTS_ROUTE,
  type MessageFacts,
} from "../../src/api/qstash/filters";

const facts = (over: Partial<MessageFacts> = {}): MessageFacts => ({
  messageId: "msg_a",
  url: "https://example.com/hook/a",
  labels: ["blue"],
  flowControlKey: "queue:orders",
  queueName: "orders",
  scheduleId: "scd_1",
  createdAtMs: 1_000,
  responseStatus: 500,
  ...over,
});

const parse = (query: string, route = DLQ_ROUTE) =>
  bulkQueryOf(new URL(`https://x.test/v2/dlq?${query}`), route);

function refusal(query: string, route = DLQ_ROUTE): EdgecronError {
  try {
    parse(query, route);
  } catch (error) {
    if (error instanceof EdgecronError) return error;
    throw error;
  }
  throw new Error(`${query} was accepted`);
}

describe("bulk route filters", () => {
  it("selects by every DLQ filter the client sends, and nothing it does not name", () => {
    const cases: [string, Partial<MessageFacts>][] = [
      ["messageId=msg_a", { messageId: "msg_b" }],
      ["scheduleId=scd_1", { scheduleId: null }],
      ["queueName=orders", { queueName: "billing" }],
      ["url=https%3A%2F%2Fexample.com%2Fhook%2Fa", { url: "https://example.com/hook/b" }],
      ["label=blue", { labels: ["red"] }],
      ["flowControlKey=queue%3Aorders", { flowControlKey: null }],
      ["responseStatus=500", { responseStatus: 404 }],
      ["fromDate=1000", { createdAtMs: 999 }],
      ["toDate=1000", { createdAtMs: 1_001 }],
    ];
    for (const [query, other] of cases) {
      const { matches } = parse(query);
      expect(matches(facts()), query).toBe(true);
      expect(matches(facts(other)), query).toBe(false);
    }
  });

  it("ORs repeated values and ANDs different filters", () => {
    const { matches } = parse("messageId=msg_a&messageId=msg_b&queueName=orders");
    expect(matches(facts({ messageId: "msg_b" }))).toBe(true);
    expect(matches(facts({ messageId: "msg_c" }))).toBe(false);
    expect(matches(facts({ messageId: "msg_b", queueName: null }))).toBe(false);
  });

  it("selects by URL group, never an entry outside one", () => {
    const { matches } = parse("topicName=g");
    expect(matches(facts({ topicName: "g" }))).toBe(true);
    expect(matches(facts({ topicName: "h" }))).toBe(false);
    expect(matches(facts({ topicName: null }))).toBe(false);
  });

  it("refuses unknown names, unserved filters and empty values, naming each", () => {
    const error = refusal("messageid=msg_a&topicName=&callerIp=1.2.3.4&label=&api=x");
    expect(error.status).toBe(400);
    expect(error.errors?.map((field) => field.path).sort()).toEqual(
      ["api", "callerIp", "label", "messageid", "topicName"].sort(),
    );
    expect(error.detail).toContain("messageid: unknown filter");
    expect(error.detail).toContain("callerIp: filter not served");
    expect(error.detail).toContain("topicName: must not be empty");
  });

  it("serves on each route only the filters the client offers there", () => {
    expect(refusal("host=example.com").detail).toContain("host: unknown filter");
    expect(refusal("responseStatus=500", CANCEL_ROUTE).detail).toContain("responseStatus: unknown filter");
    expect(refusal("messageId=msg_a", CANCEL_ROUTE).detail).toContain("messageId: unknown filter");
    expect(refusal("cursor=abc", CANCEL_ROUTE).detail).toContain("cursor: unknown filter");
    expect(refusal("dlqIds=dlq_1", EVENTS_ROUTE).detail).toContain("dlqIds: unknown filter");
    const hostAndPath = parse("host=example.com&path=%2Fhook%2Fa", CANCEL_ROUTE).matches;
    expect(hostAndPath(facts())).toBe(true);
    expect(hostAndPath(facts({ url: "https://example.com/hook/b" }))).toBe(false);
    const state = parse("state=DELIVERED", EVENTS_ROUTE).matches;
    expect(state(facts({ state: "DELIVERED" }))).toBe(true);
    expect(state(facts({ state: "FAILED" }))).toBe(false);
  });

  it("refuses malformed values", () => {
    expect(refusal("responseStatus=abc").detail).toContain("responseStatus:");
    expect(refusal("state=DONE", EVENTS_ROUTE).detail).toContain("state: must be one of");
    expect(refusal("fromDate=yesterday").detail).toContain("fromDate:");
    expect(refusal("count=0").detail).toContain("count:");
  });

  it("reads ids, count and cursor, and with no filter selects every entry", () => {
    const query = parse("dlqIds=d1&dlqIds=d2&count=5&cursor=c1");
    expect(query).toMatchObject({ ids: ["d1", "d2"], count: 5, cursor: "c1" });
    expect(query.matches(facts())).toBe(true);
    expect(parse("count=100", CANCEL_ROUTE).matches(facts({ scheduleId: null, queueName: null }))).toBe(true);
  });
});
