// The per-host throttle end to end: a tenant's target host answers 429 with Retry-After, and its
// other runs to that host wait at their shards (SCHEDULED, host_throttled) until the pause ends,
// then go, each once; another tenant's calls to the same host are not held. Real alarms, queue,
// consumer, flow gates and the recording target.
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";
import { type TargetCall, targetCalls, targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

const WAIT_LONG = { timeout: 25_000, interval: 100 };
const RETRY_AFTER_S = 3;

interface Run {
  id: string;
  state: string;
  waiting: { cause: string; reason: string; since: string | null } | null;
}

interface ThrottledHost {
  origin: string;
  limit: number;
  in_flight: number;
  waiting: number;
  paused_until: string | null;
  last_signal: string;
  last_signal_at: string;
}

async function createOnce(t: TenantWithKey, name: string, path: string, inMs: number): Promise<string> {
  const res = await api<{ id: string }>("POST", "/v1/jobs", {
    token: t.key,
    body: {
      name,
      schedule: { type: "once", at: new Date(Date.now() + inMs).toISOString() },
      target: { url: targetUrl(path) },
      retry: { max_attempts: 3, backoff: { initial: "1s", max: "1m", multiplier: 2, jitter: "none" } },
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function runsOf(t: TenantWithKey, jobId: string): Promise<Run[]> {
  const res = await api<{ data: Run[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: t.key });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function callsOf(prefix: string, count: number): Promise<TargetCall[]> {
  return vi.waitFor(async () => {
    const calls = await targetCalls(prefix);
    expect(calls.length).toBeGreaterThanOrEqual(count);
    return calls;
  }, WAIT_LONG);
}

async function throttledHosts(t: TenantWithKey): Promise<ThrottledHost[]> {
  const res = await api<{ hosts: ThrottledHost[] }>("GET", "/v1/flow-control", { token: t.key });
  expect(res.status).toBe(200);
  return res.body.hosts;
}

describe("a host that answers 429 with Retry-After", () => {
  it("is paused for its tenant: the host's other runs wait at their shards, then go after the pause, each once", async () => {
    const t = await createTenantWithKey("host-429");
    const other = await createTenantWithKey("host-other");
    const group = `/throttle/1/${RETRY_AFTER_S}/g-${t.tenantId}/`;
    const first = await createOnce(t, "first", `${group}first`, 1_000);
    const [refused] = await callsOf(`${group}first`, 1);
    const refusedAtMs = (refused as TargetCall).receivedAtMs;

    // The host's throttle is listed with its pause as soon as the shard reported the 429.
    const host = await vi.waitFor(async () => {
      const [listed] = await throttledHosts(t);
      expect(listed).toBeDefined();
      return listed as ThrottledHost;
    }, WAIT_LONG);
    expect(host).toMatchObject({ origin: new URL(targetUrl("/")).origin, last_signal: "rate_limited" });
    expect(Date.parse(host.paused_until ?? "")).toBeGreaterThanOrEqual(refusedAtMs + RETRY_AFTER_S * 1_000);
    expect(await throttledHosts(other)).toEqual([]);

    const nextIds = await Promise.all(
      [1, 2, 3, 4].map((index) => createOnce(t, `next-${index}`, `${group}next-${index}`, 200)),
    );
    const otherPath = `/ok/host-other-${other.tenantId}`;
    await createOnce(other, "other", otherPath, 200);

    // Due now, but their host is paused: they wait at the shard and say why.
    const held = await vi.waitFor(async () => {
      const runs = (await Promise.all(nextIds.map((id) => runsOf(t, id)))).flat();
      const waiting = runs.find((run) => run.waiting?.cause === "host_throttled");
      expect(waiting, JSON.stringify(runs)).toBeDefined();
      return waiting as Run;
    }, WAIT_LONG);
    expect(held.state).toBe("SCHEDULED");
    expect(held.waiting?.reason).toMatch(/^host throttled: http:\/\/127\.0\.0\.1:\d+ said to slow down/);
    // A delete still applies to a run its host holds: it never calls.
    const deleted = nextIds.pop() as string;
    expect((await api("DELETE", `/v1/jobs/${deleted}`, { token: t.key })).status).toBeLessThan(300);

    // The other tenant's call to the same host was not held by this tenant's throttle.
    const [otherCall] = await callsOf(otherPath, 1);
    expect((otherCall as TargetCall).receivedAtMs).toBeLessThan(refusedAtMs + RETRY_AFTER_S * 1_000);

    // After the pause every held run goes, none early, each exactly once; the refused run's retry too.
    const nextCalls = await callsOf(`${group}next-`, 3);
    for (const call of nextCalls) {
      expect(call.receivedAtMs).toBeGreaterThanOrEqual(refusedAtMs + RETRY_AFTER_S * 1_000);
    }
    expect(new Set(nextCalls.map((call) => call.path)).size).toBe(3);
    const firstCalls = await callsOf(`${group}first`, 2);
    expect((firstCalls[1] as TargetCall).receivedAtMs).toBeGreaterThanOrEqual(
      refusedAtMs + RETRY_AFTER_S * 1_000,
    );
    await vi.waitFor(async () => {
      const runs = (await Promise.all([first, ...nextIds].map((id) => runsOf(t, id)))).flat();
      expect(runs.map((run) => run.state)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    }, WAIT_LONG);
    expect((await targetCalls(group)).length).toBe(5);
    expect(await targetCalls(`${group}next-4`)).toEqual([]);

    // The console's Limits page shows the throttled host while it lasts.
    const client = new ConsoleClient();
    await client.signIn(t.key);
    const page = (await client.get("/console/limits")).text;
    expect(page).toContain('data-field="throttled-hosts"');
    expect(page).toContain(`data-host-row="${host.origin}"`);
    expect(page).toContain("429 Too Many Requests");
  }, 60_000);
});
