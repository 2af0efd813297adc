// The per-host throttle through a real `wrangler dev` and real local targets: a host that answers
// 429 (Retry-After: 1) whenever more than LIMIT of its calls are in flight. Once it has said so,
// the scheduler keeps the calls in flight to it under what it takes, every run still succeeds
// exactly once, and another tenant's every-second job to another host keeps its time.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOST_THROTTLE_SETTINGS } from "../../src/core/load/host-throttle";
import { createTenantWithKey, type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

const LIMIT = 3;
const HOLD_MS = 400;
const JOBS = 30;

interface Arrival {
  atMs: number;
  inFlight: number;
  refused: boolean;
  path: string;
}

/** A host that takes LIMIT calls at once, each for HOLD_MS, and answers 429 to any beyond. */
async function startLimitedHost() {
  const arrivals: Arrival[] = [];
  const succeeded = new Map<string, number>();
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    inFlight += 1;
    const path = req.url ?? "";
    const refused = inFlight > LIMIT;
    arrivals.push({ atMs: Date.now(), inFlight, refused, path });
    const done = (status: number, headers: Record<string, string> = {}) => {
      inFlight -= 1;
      if (status === 200) succeeded.set(path, (succeeded.get(path) ?? 0) + 1);
      res.writeHead(status, { "content-type": "text/plain", ...headers });
      res.end(String(status));
    };
    if (refused) done(429, { "retry-after": "1" });
    else setTimeout(() => done(200), HOLD_MS);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    succeeded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Most calls that arrived within any HOLD_MS: how many the scheduler had going to the host at once. */
function mostAtOnce(arrivals: readonly Arrival[]): number {
  const times = arrivals.map((arrival) => arrival.atMs).sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] as number) - (times[start] as number) >= HOLD_MS) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

function latenessMs(calls: readonly ReceivedCall[]): number[] {
  return calls.map((call) => call.receivedAtMs - Date.parse(String(call.headers["edgecron-scheduled-at"])));
}

describe("e2e: a host that says slow down is slowed as a whole", () => {
  const scheduler = useScheduler({ tenant: "e2e-host-throttle" });
  let host: Awaited<ReturnType<typeof startLimitedHost>>;
  beforeAll(async () => {
    host = await startLimitedHost();
  });
  afterAll(async () => {
    await host?.close();
  });

  it("keeps its calls in flight under what the host takes, runs each once, and slows no other tenant", async () => {
    const { server, target, api } = scheduler;
    const { api: otherApi } = await createTenantWithKey(server.baseUrl, { name: "e2e-host-other" });
    const steady = await otherApi("POST", "/v1/jobs", {
      name: "steady",
      schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
      target: { url: `${target.url}/steady` },
    });
    expect(steady.status).toBe(201);
    const steadyCalls = () => target.calls.filter((call) => call.path === "/steady");
    await waitUntil(() => steadyCalls().length >= 4, { timeoutMs: 20_000, what: "4 steady calls" });
    const baseline = latenessMs(steadyCalls().slice(1));

    const at = new Date(Date.now() + 3_000).toISOString();
    const batch = await api<{ created: number }>("POST", "/v1/jobs/batch", {
      jobs: Array.from({ length: JOBS }, (_, index) => ({
        name: `burst-${index}`,
        schedule: { type: "once", at },
        target: { url: `${host.url}/run/${index}` },
        retry: { max_attempts: 20, backoff: { initial: "1s", max: "4s", multiplier: 2, jitter: "full" } },
      })),
    });
    expect(batch.body.created).toBe(JOBS);
    const before = steadyCalls().length;

    await waitUntil(() => host.succeeded.size >= JOBS, {
      timeoutMs: 90_000,
      what: "every burst run succeeded",
    });
    const during = latenessMs(steadyCalls().slice(before));
    const firstRefusal = host.arrivals.find((arrival) => arrival.refused);
    expect(firstRefusal).toBeDefined();
    // The calls of the burst's first wave went out at once; once the host had said so, the
    // scheduler kept them under its throttle (the first refusal's wave aside).
    const settledAtMs = (firstRefusal as Arrival).atMs + 2_000;
    const early = host.arrivals.filter((arrival) => arrival.atMs < settledAtMs);
    const late = host.arrivals.filter((arrival) => arrival.atMs >= settledAtMs);
    const maxEarly = mostAtOnce(early);
    const maxLate = mostAtOnce(late);
    const refusedLate = late.filter((arrival) => arrival.refused).length;
    console.log(
      `[host-throttle e2e] most calls at once at the host: ${maxEarly} before the throttle settled, ${maxLate} after; ` +
        `429s ${host.arrivals.filter((arrival) => arrival.refused).length} (${refusedLate} after); ` +
        `calls ${host.arrivals.length}; steady lateness ms before ${baseline.join(", ")}, during ${during.join(", ")}`,
    );
    // A throttle starts at HOST_THROTTLE_SETTINGS.startCalls and is cut from there (a 429
    // answered at once lets a permit's next run in within the same HOLD_MS: up to LIMIT more).
    expect(maxEarly).toBeGreaterThan(HOST_THROTTLE_SETTINGS.startCalls + LIMIT);
    expect(maxLate).toBeLessThan(maxEarly);
    expect(maxLate).toBeLessThanOrEqual(HOST_THROTTLE_SETTINGS.startCalls + LIMIT);
    // ...and the host, no longer hammered, refused few of them.
    expect(refusedLate).toBeLessThanOrEqual(late.length / 2);
    // Every run succeeded exactly once.
    expect([...host.succeeded.values()].every((count) => count === 1)).toBe(true);
    // The other tenant's job, to another host, kept its time and every instant.
    expect(during.length).toBeGreaterThan(0);
    expect(Math.max(...during)).toBeLessThan(Math.max(2_000, 3 * Math.max(...baseline)));
  }, 150_000);
});
