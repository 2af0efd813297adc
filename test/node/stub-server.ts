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
    target: { type: "http", url: "https://example.com/hook", method: "POST", headers: {} },
    retry: {
      max_attempts: 3,
      backoff: { initial: "30s", max: "1h", multiplier: 2, jitter: "full" },
      retry_on_status: [],
    },
    misfire: { policy: "fire_now", grace: "60s", max_catch_up: 10 },
    overlap: "allow",
    timeout: "30s",
    start_at: null,
    end_at: null,
    max_runs: null,
    jitter: null,
    pause_after_failures: null,
    on_failure: null,
    alert_after: "2m",
    metadata: {},
    next_fire_times: ["2026-12-01T14:00:00.000Z", "2026-12-02T14:00:00.000Z"],
    created_at: "2026-11-29T00:00:00.000Z",
    updated_at: "2026-11-29T00:00:00.000Z",
    ...overrides,
  };
}
