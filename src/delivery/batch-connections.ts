// The connections one consumer batch calls its targets through. Uncapped (wrangler dev, tests) it
// is a plain limit on calls at once, and a call handed off gives its slot back. Under Cloudflare's
// 6 connections (../queue/connection-cap.ts) a handed-off call keeps its connection until its
// target answers, so a batch whose connections all hang has none left: waiting there would hold
// every other run of the batch, and the batch behind it, for the hanging calls' timeout. Instead a
// run that will not get a connection soon is given back to its shard uncalled (the consumer asks
// `acquire` and gets null), where it waits as its tenant's backlog under fair share. And a tenant
// whose calls are hanging here never takes a batch's last live connection: the other tenants'
// runs of the batch keep one. "Hanging" is a slow call (src/core/runs/slow-calls.ts: still running 1 s
// after it started), not merely a handed-off one: under a burst's load a quick target's call can
// run past the 100 ms hand-off, and giving runs back then would only add a round trip; waiting
// for such a call costs less.

import { type Release, semaphore } from "../queue/pool";
import { TenantCounter } from "./tenant-counter";

/** A held connection. */
export interface Connection {
  release: Release;
  /** Its call was handed off: uncapped its slot is free again; under the cap the call keeps it. */
  handedOff(): void;
  /** Its call is slow: under the cap the connection is kept by it (gone for this batch) until it ends. */
  slow(): void;
}

export interface BatchConnections {
  /** A connection for a run of `tenantId`, or null: none will be free soon, give the run back. */
  acquire(tenantId: string): Promise<Connection | null>;
  /** Whether a run of `tenantId` could get a connection now or soon (a message not yet claimed asks). */
  mayServe(tenantId: string): boolean;
}

/** Slow calls not yet ended, per tenant, in this isolate: the tenants whose targets hang. */
const slowCalls = new TenantCounter();

/** A call of `tenantId` is slow; the returned function says it has ended. */
export function noteSlowCall(tenantId: string): () => void {
  return slowCalls.add(tenantId);
}

function hanging(tenantId: string): boolean {
  return slowCalls.has(tenantId);
}

/** Uncapped: `concurrency` calls at once; a handed-off call gives its slot back; never null. */
export function uncappedConnections(concurrency: number): BatchConnections {
  const slots = semaphore(concurrency);
  return {
    async acquire() {
      const release = await slots.acquire();
      return { release, handedOff: release, slow: () => {} };
    },
    mayServe: () => true,
  };
}

interface Waiter {
  tenantId: string;
  resolve: (connection: Connection | null) => void;
}

/**
 * `capacity` connections (Cloudflare's 6). A slow call keeps its connection until it ends. A run
 * waits for a connection while any is not kept. A run of a hanging tenant (one with slow calls
 * in this isolate) only takes or waits for one while two are neither kept nor held by
 * such runs: the last is the other tenants'. A run that may not wait is given back (null), at once
 * or as soon as that becomes so, and so is each newcomer until a kept connection comes free. Free
 * connections go to other tenants' runs before a hanging tenant's, in arrival order.
 */
export function cappedConnections(capacity: number): BatchConnections {
  let held = 0;
  let kept = 0;
  /** Held connections kept by a slow call or given to a hanging tenant's run. */
  let suspect = 0;
  const waiting: Waiter[] = [];
  const hangingMayTake = () => capacity - suspect >= 2;
  const mayWait = (tenantId: string) => (hanging(tenantId) ? hangingMayTake() : capacity - kept >= 1);

  const connection = (tenantId: string): Connection => {
    let released = false;
    let keptHere = false;
    let suspectHere = hanging(tenantId);
    if (suspectHere) suspect += 1;
    return {
      release() {
        if (released) return;
        released = true;
        held -= 1;
        if (keptHere) kept -= 1;
        if (suspectHere) suspect -= 1;
        grant();
      },
      handedOff() {},
      slow() {
        if (released || keptHere) return;
        keptHere = true;
        kept += 1;
        if (!suspectHere) {
          suspectHere = true;
          suspect += 1;
        }
        turnAway();
      },
    };
  };

  const take = (tenantId: string): Connection => {
    held += 1;
    const taken = connection(tenantId);
    turnAway();
    return taken;
  };

  // Hands free connections to waiters, others' runs before a hanging tenant's.
  const grant = () => {
    while (held < capacity && waiting.length > 0) {
      const other = waiting.findIndex((waiter) => !hanging(waiter.tenantId));
      const pick = other >= 0 ? other : hangingMayTake() ? 0 : -1;
      if (pick < 0) break;
      const [waiter] = waiting.splice(pick, 1) as [Waiter];
      waiter.resolve(take(waiter.tenantId));
    }
    turnAway();
  };

  // Gives back every waiting run that can no longer expect a connection soon. With no tenant
  // hanging and a connection not kept, every waiter may wait: the walk (run on every take and
  // release, over a batch's few hundred waiters) is skipped.
  const turnAway = () => {
    if (!slowCalls.any() && kept < capacity) return;
    for (let i = waiting.length - 1; i >= 0; i--) {
      const waiter = waiting[i] as Waiter;
      if (mayWait(waiter.tenantId)) continue;
      waiting.splice(i, 1);
      waiter.resolve(null);
    }
  };

  return {
    acquire(tenantId) {
      if (!mayWait(tenantId)) return Promise.resolve(null);
      if (held < capacity) return Promise.resolve(take(tenantId));
      return new Promise((resolve) => waiting.push({ tenantId, resolve }));
    },
    mayServe: mayWait,
  };
}
