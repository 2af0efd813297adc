// A scripted local HTTP server standing in for the API in client-only tests: it records every
// request and answers from a handler, so the tests exercise the client's behaviour, not ours.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: () => unknown;
}

export interface StubReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Drop the connection without answering (a network error for the client). */
  destroy?: boolean;
  /** Answer only after this long (a hung server). */
  delayMs?: number;
}

export interface StubServer {
  url: string;
  requests: StubRequest[];
  reply: (handler: (request: StubRequest, index: number) => StubReply) => void;
  close: () => Promise<void>;
}

function answer(res: ServerResponse, reply: StubReply): void {
  if (res.destroyed) return;
  const isProblem = reply.status >= 400 && typeof reply.body === "object";
  const contentType =
    typeof reply.body === "string"
      ? "text/html"
      : isProblem
        ? "application/problem+json"
        : "application/json";
  const text =
    reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { "content-type": contentType, ...reply.headers });
  res.end(text);
}

export async function startStub(): Promise<StubServer> {
  const requests: StubRequest[] = [];
  let handler: (request: StubRequest, index: number) => StubReply = () => ({ status: 404 });
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const request: StubRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        json: () => JSON.parse(body),
      };
      requests.push(request);
      const reply = handler(request, requests.length - 1);
      if (reply.destroy) {
        req.socket.destroy();
        return;
      }
      setTimeout(() => answer(res, reply), reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A job as docs/API.md shapes it, for stub replies. */
export function sampleJob(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "job_01",
    name: "renew-42",
    status: "ACTIVE",
    version: 1,
    shard: 3,
    schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "America/New_York" },
    calendars: [],
    exclude: null,
    target: { type: "http", url: "https://example.com/hook", method: "POST", headers: {} },
    retry: {
      max_attempts: 3,
      backoff: { initial: "30s", max: "1h", multiplier: 2, jitter: "full" },
      retry_on_status: [],
    },
    misfire: { policy: "fire_now", grace: "60s", max_catch_up: 10 },
    overlap: "allow",
    timeout: "30s",
    completion: "response",
    heartbeat_timeout: "5m",
    start_at: null,
    end_at: null,
    max_runs: null,
    priority: 3,
    jitter: null,
    window: null,
    flexible_window: null,
    pause_after_failures: null,
    on_failure: null,
    alert_after: "2m",
    flow_control: null,
    debounce: null,
    metadata: {},
    next_fire_times: ["2026-12-01T14:00:00.000Z", "2026-12-02T14:00:00.000Z"],
    created_at: "2026-11-29T00:00:00.000Z",
    updated_at: "2026-11-29T00:00:00.000Z",
    ...overrides,
  };
}

/** A job with every field set away from its default, as the API would answer it. */
export function fullJob(): Record<string, unknown> {
  return sampleJob({
    schedule: undefined,
    schedules: [
      {
        type: "cron",
        expr: "30 2 * * *",
        timezone: "America/New_York",
        dst: { gap: "skip", overlap: "both" },
      },
      { type: "interval", every: "15m", anchor: "2026-12-01T00:00:00Z" },
    ],
    calendars: ["uk-holidays", "shutdown"],
    exclude: {
      timezone: "Europe/London",
      rules: [
        { type: "date", date: "2026-12-25" },
        { type: "range", from: "2026-12-24", to: "2027-01-01" },
        { type: "weekly", days: ["sat", "sun"] },
      ],
    },
    target: {
      type: "http",
      url: "https://example.com/hook",
      method: "PUT",
      headers: { "x-tenant": "acme" },
      body: { sub: 42 },
    },
    retry: {
      max_attempts: 7,
      backoff: { initial: "10s", max: "2h", multiplier: 3, jitter: "equal" },
      retry_on_status: [409, 423],
    },
    misfire: { policy: "catch_up", grace: "5m", max_catch_up: 4 },
    overlap: "buffer_one",
    timeout: "45s",
    completion: "callback",
    heartbeat_timeout: "10m",
    start_at: "2026-12-01T00:00:00.000Z",
    end_at: "2027-12-01T00:00:00.000Z",
    max_runs: 99,
    priority: 1,
    jitter: "30s",
    window: { days: ["MON-FRI"], between: ["08:00", "20:00"], timezone: "Europe/Berlin", outside: "skip" },
    flexible_window: { max: "15m" },
    pause_after_failures: 6,
    on_failure: "https://example.com/failed",
    alert_after: "7m",
    flow_control: { key: "billing", rate: 10, period: "1m", parallelism: 2 },
    debounce: { key: "acct", period: "30s", mode: "trailing", max_wait: "5m" },
    metadata: { team: "payments" },
    qstash: { callback: "https://example.com/cb", labels: ["nightly"] },
    managed_by: "schedules.yaml",
  });
}
