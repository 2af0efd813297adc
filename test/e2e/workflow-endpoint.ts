// A plain Node HTTP endpoint serving Upstash Workflow handlers (the SDK's own `serve`), as a
// user's server would: each request handed to the handler of its path as a fetch Request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (request: Request) => Promise<Response>;

async function requestOf(req: IncomingMessage, baseUrl: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`${baseUrl}${req.url ?? "/"}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
}

export async function startEndpoint(
  routes: Record<string, Handler>,
): Promise<{ url: string; close: () => Promise<void> }> {
  let baseUrl = "";
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const handler = routes[(req.url ?? "").split("?")[0] ?? ""];
    if (handler === undefined) {
      res.writeHead(404).end();
      return;
    }
    const response = await handler(await requestOf(req, baseUrl));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: baseUrl, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
