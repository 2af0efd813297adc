// The local dev server's Node process serves the runtime a "loopback" HTTP server (wrangler's
// local simulators call it: a local queue logs every batch it delivered through it). Node closes
// a keep-alive connection that has been idle for 5 s (http.Server's keepAliveTimeout), and the
// runtime keeps such connections pooled: a request it sends on one at the moment Node closes it
// fails with "Network connection lost". Where that request is the local queue's log line after a
// batch, the queue's delivery loop ends in that rejection and never hands out another batch: every
// message sent to that queue afterwards waits for ever, with nothing in the log. Seen after the
// crash test's restarts (a burst, then a quiet gap of 5-7 s between two batches on a busy
// machine): both dispatch queues stopped within 0.5 s of each other and runs sent later were never
// claimed. Left open, an idle connection is closed only by the runtime, which then does not reuse it.

import http from "node:http";

let applied = false;

/**
 * Makes every HTTP server this process creates from now on keep idle keep-alive connections open
 * (keepAliveTimeout 0: no idle timeout). Call it before the dev server starts; idempotent.
 */
export function keepIdleConnectionsOpen() {
  if (applied) return;
  applied = true;
  const createServer = http.createServer;
  /** @param {unknown[]} args */
  function createServerKeepingIdleConnections(...args) {
    /** @type {http.Server} */
    const server = Reflect.apply(createServer, http, args);
    server.keepAliveTimeout = 0;
    return server;
  }
  http.createServer = /** @type {typeof http.createServer} */ (createServerKeepingIdleConnections);
}
