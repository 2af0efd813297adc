// A real local HTTP server used as the job target by the workers-pool suites (started from
// vitest's globalSetup, in Node). Behaviour is chosen by the path so tests need no shared state:
//   /ok/<anything>            200
//   /status/<code>/<anything> that status (Retry-After: 0 for 429/503)
//   /flaky/<n>/<anything>     503 for the first n calls to this exact path, then 200
//   /slow/<ms>/<anything>     200 after <ms>
//   /throttle/<n>/<s>/<group>/<anything>  429 with Retry-After: <s> for the group's first n calls, then 200
//   /redirect/<name>          302 to /ok/redirected/<name> on this server (never to be followed)
//   /async/<anything>         202 with Edgecron-Async: true (a long-running target; the test reports back)
//   /answer/<code>/<anything> that status, answering the request's own body (as application/json)
// GET /__calls?prefix=<path prefix> lists what was received (method, path, url, headers, body, at).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  method: string;
  path: string;
  /** Path and query as received (what a receiver's request URL holds, after the origin). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAtMs: number;
}

export async function startRecordingTarget(): Promise<{ url: string; server: Server }> {
  const calls: RecordedCall[] = [];
  const seen = new Map<string, number>();
  const groups = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://target");
      if (url.pathname === "/__calls") {
        const prefix = url.searchParams.get("prefix") ?? "/";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(calls.filter((call) => call.path.startsWith(prefix))));
        return;
      }
      calls.push({
        method: req.method ?? "",
        path: url.pathname,
        url: req.url ?? "/",
        headers: req.headers,
        body,
        receivedAtMs: Date.now(),
      });
      const count = (seen.get(url.pathname) ?? 0) + 1;
      seen.set(url.pathname, count);
      const [, kind, arg] = url.pathname.split("/");
      const reply = (status: number, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "text/plain", ...headers });
        res.end(String(status));
      };
      if (kind === "status")
        return reply(Number(arg), Number(arg) === 429 || Number(arg) === 503 ? { "retry-after": "0" } : {});
      if (kind === "redirect")
        return reply(302, { location: `http://${req.headers.host}/ok/redirected/${arg}` });
      if (kind === "flaky") return reply(count <= Number(arg) ? 503 : 200);
      if (kind === "throttle") {
        const [, , , retryAfter, group] = url.pathname.split("/");
        const calls = (groups.get(group ?? "") ?? 0) + 1;
        groups.set(group ?? "", calls);
        return calls <= Number(arg) ? reply(429, { "retry-after": retryAfter ?? "1" }) : reply(200);
      }
      if (kind === "async") return reply(202, { "edgecron-async": "true" });
      if (kind === "answer") {
        res.writeHead(Number(arg), { "content-type": "application/json", "x-answered": "whole" });
        res.end(body);
        return;
      }
      if (kind === "slow") {
        setTimeout(() => reply(200), Number(arg));
        return;
      }
      reply(200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
