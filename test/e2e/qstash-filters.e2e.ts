// Every filter the official @upstash/qstash client offers on its bulk and filtered calls (DLQ list,
// delete and retry; logs; messages cancel), unchanged but for baseUrl and a tenant API key, against
// the real dev server: each selects exactly the entries it names, bulk actions leave every other
// entry alone, and filters we hold no data for are refused with a 400 naming them.
import { Client, QstashError } from "@upstash/qstash";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTenantWithKey,
  type ReceivedCall,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

type DlqMessage = Awaited<ReturnType<Client["dlq"]["listMessages"]>>["messages"][number];

describe("@upstash/qstash filters against the dev server", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let qstash: Client;
  /** The dead letters the DLQ tests made: a, b and c by publish, q by a queue, s by a schedule. */
  const letters: Record<"a" | "b" | "c" | "q" | "s", DlqMessage | undefined> = {
    a: undefined,
    b: undefined,
    c: undefined,
    q: undefined,
    s: undefined,
  };

  const callsTo = (path: string): ReceivedCall[] =>
    target.calls.filter((call) => call.path.split("?")[0] === path);
  const dlqIds = (messages: readonly DlqMessage[]) => messages.map((message) => message.dlqId).sort();
  const letter = (name: keyof typeof letters): DlqMessage => {
    const found = letters[name];
    if (found === undefined) throw new Error(`dead letter ${name} was not made`);
    return found;
  };
  const refusedWith = async (call: Promise<unknown>, name: string) => {
    const error = await call.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(QstashError);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining(name) });
  };
  const deadLetterOf = (messageId: string) =>
    waitUntil(
      async () =>
        (await qstash.dlq.listMessages({ filter: { messageId } })).messages.find(
          (message) => message.messageId === messageId,
        ),
      { timeoutMs: 30_000, what: `${messageId} in the DLQ` },
    );

  beforeAll(async () => {
    [server, target] = await Promise.all([startScheduler(), startTarget()]);
    target.respond((call) => ({ status: call.path.startsWith("/fail/") ? 500 : 200 }));
    const { key } = await createTenantWithKey(server.baseUrl, { name: "qstash-filters" });
    qstash = new Client({ baseUrl: server.baseUrl, token: key, devMode: false });

    const publishFailing = (name: string, extra: Record<string, unknown> = {}) =>
      qstash.publish({
        url: `${target.url}/fail/${name}`,
        body: name,
        retries: 0,
        label: `label-${name}`,
        ...extra,
      });
    const a = await publishFailing("a", { flowControl: { key: "fc-a", parallelism: 1 } });
    const b = await publishFailing("b");
    const c = await publishFailing("c");
    const queue = qstash.queue({ queueName: "filters-queue" });
    await queue.upsert({ parallelism: 1 });
    const q = await queue.enqueue({ url: `${target.url}/fail/q`, body: "q", retries: 0 });
    await qstash.schedules.create({
      destination: `${target.url}/fail/s`,
      cron: "*/2 * * * * *",
      scheduleId: "filters-schedule",
      body: "s",
      retries: 0,
    });
    letters.a = await deadLetterOf(a.messageId);
    letters.b = await deadLetterOf(b.messageId);
    letters.c = await deadLetterOf(c.messageId);
    letters.q = await deadLetterOf(q.messageId);
    letters.s = await waitUntil(
      async () =>
        (await qstash.dlq.listMessages()).messages.find((message) => message.url.endsWith("/fail/s")),
      { timeoutMs: 30_000, what: "a fire of the schedule in the DLQ" },
    );
    await qstash.schedules.pause({ schedule: "filters-schedule" });
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), target?.close()]);
    if (server) removeState(server.stateDir);
  });

  it("lists the DLQ by each filter field, selecting exactly the entries it names", async () => {
    const list = async (filter: Parameters<Client["dlq"]["listMessages"]>[0]) =>
      dlqIds((await qstash.dlq.listMessages(filter)).messages);
    expect(await list({ filter: { messageId: letter("a").messageId } })).toEqual([letter("a").dlqId]);
    expect(await list({ filter: { messageId: "job_nonexistent" } })).toEqual([]);
    expect(await list({ filter: { url: `${target.url}/fail/b` } })).toEqual([letter("b").dlqId]);
    expect(await list({ filter: { label: ["label-a", "label-c"] } })).toEqual(
      dlqIds([letter("a"), letter("c")]),
    );
    expect(await list({ filter: { flowControlKey: "fc-a" } })).toEqual([letter("a").dlqId]);
    expect(await list({ filter: { queueName: "filters-queue" } })).toEqual([letter("q").dlqId]);
    const bySchedule = (await qstash.dlq.listMessages({ filter: { scheduleId: "filters-schedule" } }))
      .messages;
    expect(bySchedule.length).toBeGreaterThanOrEqual(1);
    expect(bySchedule.every((message) => message.url === `${target.url}/fail/s`)).toBe(true);
    expect(await list({ filter: { scheduleId: "other-schedule" } })).toEqual([]);
    expect(await list({ filter: { responseStatus: 404 } })).toEqual([]);
    const failed = await list({ filter: { responseStatus: 500, label: "label-b" } });
    expect(failed).toEqual([letter("b").dlqId]);
    const afterAll = await list({ filter: { fromDate: Date.now() + 60_000 } });
    expect(afterAll).toEqual([]);
    expect(await list({ filter: { toDate: letter("a").createdAt, label: "label-a" } })).toEqual([
      letter("a").dlqId,
    ]);
    // No entry here was published to a URL group (qstash-url-groups.e2e.ts selects by one).
    expect(await list({ filter: { urlGroup: "group" } })).toEqual([]);
    await refusedWith(qstash.dlq.listMessages({ filter: { callerIp: "127.0.0.1" } }), "callerIp");
  });

  it("reads logs by message, queue, schedule, host, path and state, each returning only its own", async () => {
    const a = letter("a").messageId;
    const byMessage = (await qstash.logs({ filter: { messageId: a } })).logs;
    expect(byMessage.length).toBeGreaterThanOrEqual(2);
    expect(byMessage.every((log) => log.messageId === a)).toBe(true);
    expect((await qstash.logs({ filter: { messageId: "job_nonexistent" } })).logs).toEqual([]);
    const byQueue = (await qstash.logs({ filter: { queueName: "filters-queue" } })).logs;
    expect(byQueue.length).toBeGreaterThanOrEqual(1);
    expect(byQueue.every((log) => log.messageId === letter("q").messageId)).toBe(true);
    const bySchedule = (await qstash.logs({ filter: { scheduleId: "filters-schedule" } })).logs;
    expect(bySchedule.length).toBeGreaterThanOrEqual(1);
    expect(bySchedule.every((log) => log.url === `${target.url}/fail/s`)).toBe(true);
    const host = new URL(target.url).host;
    const byPath = (await qstash.logs({ filter: { host, path: "/fail/b" } })).logs;
    expect(byPath.length).toBeGreaterThanOrEqual(1);
    expect(byPath.every((log) => log.messageId === letter("b").messageId)).toBe(true);
    const failedOfC = (await qstash.logs({ filter: { url: `${target.url}/fail/c`, state: "FAILED" } })).logs;
    expect(failedOfC.map((log) => [log.messageId, log.state])).toEqual([[letter("c").messageId, "FAILED"]]);
    expect((await qstash.logs({ filter: { urlGroup: "group" } })).logs).toEqual([]);
  });

  it("deletes from the DLQ exactly what the filter selects, and refuses what it cannot select", async () => {
    expect(await qstash.dlq.delete({ filter: { urlGroup: "group" } })).toMatchObject({ deleted: 0 });
    await refusedWith(qstash.dlq.delete({ filter: { callerIp: "127.0.0.1" } }), "callerIp");
    expect(await qstash.dlq.delete({ filter: { messageId: "job_nonexistent" } })).toMatchObject({
      deleted: 0,
    });
    const a = letter("a");
    expect(await qstash.dlq.delete({ filter: { messageId: a.messageId } })).toMatchObject({ deleted: 1 });
    const left = dlqIds((await qstash.dlq.listMessages()).messages);
    expect(left).not.toContain(a.dlqId);
    for (const name of ["b", "c", "q", "s"] as const) expect(left).toContain(letter(name).dlqId);
  });

  it("retries from the DLQ only the entries the filter selects", async () => {
    expect((await qstash.dlq.retry({ filter: { urlGroup: "group" } })).responses).toEqual([]);
    expect((await qstash.dlq.retry({ filter: { messageId: "job_nonexistent" } })).responses).toEqual([]);
    const b = letter("b");
    const callsBefore = {
      b: callsTo("/fail/b").length,
      c: callsTo("/fail/c").length,
      q: callsTo("/fail/q").length,
    };
    const retried = await qstash.dlq.retry({ filter: { label: "label-b" } });
    expect(retried.responses).toEqual([{ messageId: b.messageId }]);
    await waitUntil(() => callsTo("/fail/b").length > callsBefore.b, {
      timeoutMs: 30_000,
      what: "b redelivered",
    });
    const left = dlqIds((await qstash.dlq.listMessages()).messages);
    expect(left).not.toContain(b.dlqId);
    for (const name of ["c", "q"] as const) expect(left).toContain(letter(name).dlqId);
    expect(callsTo("/fail/c")).toHaveLength(callsBefore.c);
    expect(callsTo("/fail/q")).toHaveLength(callsBefore.q);
  });

  it("cancels only the waiting messages each filter selects", async () => {
    const later = (name: string, extra: Record<string, unknown> = {}) =>
      qstash.publish({
        url: `${target.url}/later/${name}`,
        body: name,
        delay: 600,
        label: `later-${name}`,
        ...extra,
      });
    const one = await later("one", { flowControl: { key: "fc-later", parallelism: 1 } });
    const two = await later("two");
    const three = await later("three");
    const exists = async (messageId: string) =>
      qstash.messages.get(messageId).then(
        () => true,
        () => false,
      );
    expect(await qstash.messages.cancel({ filter: { urlGroup: "group" } })).toEqual({ cancelled: 0 });
    expect(await qstash.messages.cancel({ filter: { scheduleId: "filters-schedule" } })).toEqual({
      cancelled: 0,
    });
    expect(await qstash.messages.cancel({ filter: { queueName: "no-such-queue" } })).toEqual({
      cancelled: 0,
    });
    expect(await qstash.messages.cancel({ filter: { flowControlKey: "fc-later" } })).toEqual({
      cancelled: 1,
    });
    expect([await exists(one.messageId), await exists(two.messageId), await exists(three.messageId)]).toEqual(
      [false, true, true],
    );
    const host = new URL(target.url).host;
    expect(await qstash.messages.cancel({ filter: { host, path: "/later/two" } })).toEqual({ cancelled: 1 });
    expect(await exists(three.messageId)).toBe(true);
    expect(
      await qstash.messages.cancel({ filter: { label: "later-three", url: `${target.url}/later/three` } }),
    ).toEqual({
      cancelled: 1,
    });
    expect(await exists(three.messageId)).toBe(false);
  });
});
