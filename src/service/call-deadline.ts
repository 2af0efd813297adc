// A call a caller waits on has a deadline. A shard or a store that does not answer (seen locally
// after a crash: one stats read held for five minutes) then costs the caller an error it recovers
// from: a view answers 503 to retry, a read shared by several callers is dropped instead of
// handing every later caller the same hung promise, and the dispatch consumer treats the shard as
// unreachable (the message comes again, and the shard's leases are the backstop). A local queue
// that stopped handing out batches after a crash was another cause, not a hung shard call: its log
// request to the dev server failed on a closed idle connection (scripts/lib/loopback-keep-alive.mjs).

/** Longest a view's read of one shard may take. */
export const READ_DEADLINE_MS = 10_000;
/** Longest the dispatch consumer waits on one claim, report, renewal or give-back RPC (below the 30 s dispatch lease). */
export const SHARD_CALL_DEADLINE_MS = 20_000;

/** `call`, or a rejection naming `what` once `deadlineMs` has passed without an answer. */
export function withinDeadline<T>(call: Promise<T>, what: string, deadlineMs = READ_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
