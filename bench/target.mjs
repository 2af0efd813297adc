// The bench's HTTP target, run as a child process (bench/run.mjs forks it) so that receipt times are
// not delayed by the bench's own work. Keep-alive, answers 200 at once, and records per scenario
// (the first path segment) the receipt time minus `Edgecron-Scheduled-At` and how often each
// idempotency key arrived. `?hold=<ms>` holds the answer that long and records receipt times and
// the most calls in progress at once (the flowcontrol scenario). `?fail_first=1` answers 500 the
// first time it sees an idempotency key and 200 after (the retry scenario). The parent asks over IPC.
import { createServer } from "node:http";

/** scenario -> { lateness: number[], keys: Map<key, count>, firstMs, lastMs } */
const scenarios = new Map();

function scenarioOf(name) {
  let s = scenarios.get(name);
  if (!s) {
    s = {
      lateness: [],
      keys: new Map(),
      firstMs: null,
      lastMs: null,
      calls: 0,
      receipts: [],
      inFlight: 0,
      maxInFlight: 0,
    };
    scenarios.set(name, s);
  }
  return s;
}

const server = createServer((req, res) => {
  const receivedAtMs = Date.now();
  const name = (req.url ?? "/").split("/")[1] || "default";
  const s = scenarioOf(name);
  s.calls += 1;
  s.firstMs ??= receivedAtMs;
  s.lastMs = receivedAtMs;
  const scheduledAt = req.headers["edgecron-scheduled-at"];
  if (typeof scheduledAt === "string") s.lateness.push(receivedAtMs - Date.parse(scheduledAt));
  const key = req.headers["idempotency-key"];
  const seenBefore = typeof key === "string" && s.keys.has(key);
  if (typeof key === "string") s.keys.set(key, (s.keys.get(key) ?? 0) + 1);
  const params = new URL(req.url ?? "/", "http://target").searchParams;
  const holdMs = Number(params.get("hold") ?? 0);
  const status = params.get("fail_first") === "1" && !seenBefore ? 500 : 200;
  if (holdMs > 0) {
    s.receipts.push(receivedAtMs);
    s.inFlight += 1;
    s.maxInFlight = Math.max(s.maxInFlight, s.inFlight);
  }
  const answer = () => {
    if (holdMs > 0) s.inFlight -= 1;
    res.writeHead(status, { "content-type": "text/plain", "content-length": "2" });
    res.end("ok");
  };
  // Drain the body (if any) before answering, so the connection stays reusable.
  req.resume();
  req.on("end", () => (holdMs > 0 ? setTimeout(answer, holdMs) : answer()));
});
let connections = 0;
server.on("connection", () => {
  connections += 1;
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.maxRequestsPerSocket = 0;

process.on("message", (msg) => {
  if (msg.type === "stats") {
    const s = scenarios.get(msg.scenario);
    if (!s) return process.send({ id: msg.id, calls: 0, lateness: [], uniqueKeys: 0, duplicates: 0 });
    let duplicates = 0;
    for (const n of s.keys.values()) if (n > 1) duplicates += n - 1;
    const keyCounts = msg.withKeys ? Object.fromEntries(s.keys) : undefined;
    process.send({
      id: msg.id,
      calls: s.calls,
      firstMs: s.firstMs,
      lastMs: s.lastMs,
      lateness: msg.withLateness ? s.lateness : [],
      uniqueKeys: s.keys.size,
      duplicates,
      keyCounts,
      receipts: msg.withReceipts ? s.receipts : undefined,
      maxInFlight: s.maxInFlight,
    });
  } else if (msg.type === "count") {
    process.send({ id: msg.id, calls: scenarios.get(msg.scenario)?.calls ?? 0, connections });
  } else if (msg.type === "reset") {
    scenarios.delete(msg.scenario);
    process.send({ id: msg.id, ok: true });
  }
});

server.listen(0, "127.0.0.1", () => {
  process.send({ type: "ready", port: server.address().port });
});
process.on("disconnect", () => process.exit(0));
