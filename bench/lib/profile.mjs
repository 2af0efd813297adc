// CPU profile of the edgecron isolate over the V8 inspector Miniflare exposes (BENCH_PROFILE=1):
// where workerd's JavaScript time goes, by function and by file, as evidence for what bounds a
// scenario. Native work a call waits on inside the isolate (SQLite, fetch) is billed to the
// JavaScript frame that made the call.
import { writeFileSync } from "node:fs";
import WebSocket from "ws";

export const INSPECTOR_PORT = 9229;

/** Connects to the worker's inspector; resolves with start() and stop(path) -> summary. */
export async function isolateProfiler(workerName = "edgecron", port = INSPECTOR_PORT) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/core:user:${workerName}`);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    const entry = pending.get(message.id);
    if (entry) {
      pending.delete(message.id);
      if (message.error) entry.reject(new Error(JSON.stringify(message.error)));
      else entry.resolve(message.result);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 1000 });
  return {
    start: () => send("Profiler.start"),
    async stop(path) {
      const { profile } = await send("Profiler.stop");
      socket.close();
      writeFileSync(path, JSON.stringify(profile));
      return summarize(profile);
    },
  };
}

/** Self time per function and per file, in ms, largest first. */
export function summarize(profile, top = 40) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map();
  const byFile = new Map();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    const name = frame.functionName || "(anonymous)";
    if (name === "(idle)" || name === "(program)") {
      idleUs += name === "(idle)" ? us : 0;
      if (name === "(idle)") continue;
    }
    totalUs += us;
    const file = (frame.url || "(native)").split("/").slice(-2).join("/");
    const key = `${name} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const rank = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => ({ key, ms: Math.round(us / 1000), pct: Math.round((1000 * us) / totalUs) / 10 }));
  return {
    busy_ms: Math.round(totalUs / 1000),
    idle_ms: Math.round(idleUs / 1000),
    functions: rank(byFunction),
    files: rank(byFile),
  };
}
