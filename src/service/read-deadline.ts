// A read that a door waits on has a deadline. A shard or a database that does not answer (seen
// locally after a crash: one view's read hung for five minutes) then costs its caller a 503 to
// retry, not a request that never ends, and a read shared by several callers (./tenant-fanout.ts)
// is dropped instead of handing every later caller the same hung promise.

/** Longest a view's read of one shard or one store may take. */
export const READ_DEADLINE_MS = 10_000;

/** `read`, or a rejection naming `what` once `deadlineMs` has passed without an answer. */
export function withinDeadline<T>(read: Promise<T>, what: string, deadlineMs = READ_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}
