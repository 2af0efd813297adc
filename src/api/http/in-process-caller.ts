// The console calls the API in-process for a session it has already checked (src/console/security.ts)
// and holds no bearer secret to send: the session stores who signed in, never the key or token.
// It hands the API the caller with the very Request object it dispatches. A request that arrives
// from the network is a different object and can never be in this map, so nothing outside the
// Worker can claim a caller this way.
import type { Caller } from "./app-env";

const callers = new WeakMap<Request, Caller>();

/** Marks a Request built in this Worker as made by `caller`; returns it for `app.fetch`. */
export function asInProcessCaller(request: Request, caller: Caller): Request {
  callers.set(request, caller);
  return request;
}

export function inProcessCallerOf(request: Request): Caller | undefined {
  return callers.get(request);
}
