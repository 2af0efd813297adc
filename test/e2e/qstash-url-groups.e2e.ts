// URL groups with the official @upstash/qstash client, unchanged, against the real dev server:
// the group's endpoints are kept as the client edits them, and a publish to the group is one
// message per endpoint, each with its own delivery, retries and dead letter.
import { Client } from "@upstash/qstash";
import { beforeAll, describe, expect, it } from "vitest";
import { type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("@upstash/qstash URL groups against the dev server", () => {
  const e2e = useScheduler({ tenant: "qstash-url-groups" });
  let qstash: Client;
  const callsTo = (path: string): ReceivedCall[] =>
    e2e.target.calls.filter((call) => call.path.split("?")[0] === path);

  beforeAll(() => {
    e2e.target.respond((call) => ({ status: call.path.startsWith("/fail/") ? 500 : 200 }));
    qstash = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey, devMode: false });
  });

  it("keeps the endpoints as they are added and removed, and deletes the group", async () => {
    await qstash.urlGroups.addEndpoints({
      name: "edits",
      endpoints: [{ name: "one", url: `${e2e.target.url}/ok/1` }, { url: `${e2e.target.url}/ok/2` }],
    });
    // Adding an endpoint already there (same URL) keeps one copy.
    await qstash.urlGroups.addEndpoints({ name: "edits", endpoints: [{ url: `${e2e.target.url}/ok/2` }] });
    expect(await qstash.urlGroups.get("edits")).toMatchObject({
      name: "edits",
      endpoints: [{ name: "one", url: `${e2e.target.url}/ok/1` }, { url: `${e2e.target.url}/ok/2` }],
      createdAt: expect.any(Number),
    });
    await qstash.urlGroups.removeEndpoints({ name: "edits", endpoints: [{ name: "one" }] });
    expect((await qstash.urlGroups.get("edits")).endpoints).toEqual([{ url: `${e2e.target.url}/ok/2` }]);
    expect((await qstash.urlGroups.list()).map((group) => group.name)).toEqual(["edits"]);
    const badUrl = await qstash.urlGroups
      .addEndpoints({ name: "edits", endpoints: [{ url: "ftp://nowhere" }] })
      .catch((error: unknown) => error);
    expect(badUrl).toMatchObject({ status: 400, message: expect.stringContaining("endpoints[0].url") });
    const scheduled = await qstash.schedules
      .create({ destination: "edits", cron: "* * * * *" })
      .catch((error: unknown) => error);
    expect(scheduled).toMatchObject({
      status: 400,
      message: expect.stringContaining("URL group is not served"),
    });
    await qstash.urlGroups.delete("edits");
    expect(await qstash.urlGroups.list()).toEqual([]);
    const gone = await qstash.publish({ urlGroup: "edits", body: "x" }).catch((error: unknown) => error);
    expect(gone).toMatchObject({ status: 404, message: expect.stringContaining("url group edits") });
  });

  it("delivers a publish to every endpoint, each message with its own retries and dead letter", async () => {
    await qstash.urlGroups.addEndpoints({
      name: "fanout",
      endpoints: [
        { name: "good", url: `${e2e.target.url}/ok/fanout` },
        { name: "bad", url: `${e2e.target.url}/fail/fanout` },
      ],
    });
    const answers = await qstash.publish({ urlGroup: "fanout", body: "hello", retries: 1 });
    expect(Array.isArray(answers)).toBe(true);
    const published = answers as unknown as { messageId: string; url: string }[];
    expect(published.map((answer) => answer.url)).toEqual([
      `${e2e.target.url}/ok/fanout`,
      `${e2e.target.url}/fail/fanout`,
    ]);
    const [good, bad] = published;
    expect(good?.messageId).not.toBe(bad?.messageId);
    await waitUntil(() => callsTo("/ok/fanout").length === 1, { timeoutMs: 30_000, what: "the good call" });
    expect(callsTo("/ok/fanout")[0]).toMatchObject({
      body: "hello",
      headers: { "upstash-topic-name": "fanout", "upstash-message-id": good?.messageId },
    });
    // The failing endpoint alone is retried (retries: 1, two calls), then dead-lettered.
    const letter = await waitUntil(
      async () => (await qstash.dlq.listMessages({ filter: { urlGroup: "fanout" } })).messages[0],
      { timeoutMs: 60_000, what: "the bad endpoint's dead letter" },
    );
    expect(letter).toMatchObject({ messageId: bad?.messageId, urlGroup: "fanout", endpointName: "bad" });
    expect(callsTo("/fail/fanout")).toHaveLength(2);
    expect(callsTo("/ok/fanout")).toHaveLength(1);
    expect(await qstash.messages.get(good?.messageId ?? "")).toMatchObject({
      urlGroup: "fanout",
      endpointName: "good",
    });
    expect((await qstash.dlq.listMessages({ filter: { urlGroup: "other" } })).messages).toEqual([]);
  });

  it("keeps a deduplication id per endpoint, so every endpoint still gets its message once", async () => {
    await qstash.urlGroups.addEndpoints({
      name: "dedup",
      endpoints: [{ url: `${e2e.target.url}/ok/dedup-1` }, { url: `${e2e.target.url}/ok/dedup-2` }],
    });
    const first = (await qstash.publish({
      urlGroup: "dedup",
      body: "d",
      deduplicationId: "same",
    })) as unknown as { messageId: string; deduplicated?: boolean }[];
    const again = (await qstash.publish({
      urlGroup: "dedup",
      body: "d",
      deduplicationId: "same",
    })) as unknown as { messageId: string; deduplicated?: boolean }[];
    expect(first).toHaveLength(2);
    expect(first.some((answer) => answer.deduplicated)).toBe(false);
    expect(again.map((answer) => [answer.messageId, answer.deduplicated])).toEqual(
      first.map((answer) => [answer.messageId, true]),
    );
    await waitUntil(() => callsTo("/ok/dedup-1").length + callsTo("/ok/dedup-2").length === 2, {
      timeoutMs: 30_000,
      what: "one call per endpoint",
    });
  });

  it("answers a batch item to a group with the list of its endpoints' messages", async () => {
    await qstash.urlGroups.addEndpoints({
      name: "batched",
      endpoints: [{ url: `${e2e.target.url}/ok/batch-1` }, { url: `${e2e.target.url}/ok/batch-2` }],
    });
    const answers = (await qstash.batch([
      { urlGroup: "batched", body: "g" },
      { url: `${e2e.target.url}/ok/batch-alone`, body: "u" },
    ])) as unknown[];
    expect(answers).toHaveLength(2);
    expect(answers[0]).toEqual([
      { messageId: expect.any(String), url: `${e2e.target.url}/ok/batch-1` },
      { messageId: expect.any(String), url: `${e2e.target.url}/ok/batch-2` },
    ]);
    expect(answers[1]).toEqual({ messageId: expect.any(String), url: `${e2e.target.url}/ok/batch-alone` });
    await waitUntil(
      () => ["/ok/batch-1", "/ok/batch-2", "/ok/batch-alone"].every((path) => callsTo(path).length === 1),
      { timeoutMs: 30_000, what: "the three batch calls" },
    );
  });
});
