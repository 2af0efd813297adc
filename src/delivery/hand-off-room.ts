// The isolate's room for handed-off calls (./dispatch-consumer.ts), and who may start a call in it.
// A handed-off call still holds a connection (about four sockets under `wrangler dev`), so the room
// is bounded; a call that runs past the hand-off when the room is full keeps its batch slot, and
// the local queue delivers the next batch only when that one has ended: every tenant waits.
//
// The shards keep a tenant with slow calls to a few runs in flight (src/core/runs/slow-calls.ts), but a
// call is known slow only a second after it starts, and by then a tenant that floods a hanging
// target has had a whole dispatch window sent (thousands of runs): 300 every-second jobs to a
// target that never answers filled the room in 15 s, and another tenant's every-second job then
// waited up to 30 s. So the room is shared here as well: a tenant may start a call only while its
// calls in progress (started and not ended, handed off or not) are fewer than the room left. A
// tenant whose target hangs stops at about half the room, the next at half of what is left, and so
// on; others' quick calls, which hold none of it, still start. The room never fills, so no batch
// waits on it; and a tenant stays here only until its shards know its calls are slow (a second),
// after which they send it only a few runs. A run that may not start is given back to its shard
// uncalled, where it waits as its tenant's backlog.

import type { BatchConnections } from "./batch-connections";
import { TenantCounter } from "./tenant-counter";

/** Handed-off calls per isolate, at most. */
export const MAX_HANDED_OFF_CALLS = 2_048;

export class HandOffRoom {
  #handedOff = 0;
  readonly #inProgress = new TenantCounter();

  constructor(private readonly capacity: number) {}

  /** Room left for handed-off calls. */
  get left(): number {
    return this.capacity - this.#handedOff;
  }

  /** Whether a call of `tenantId` may start now (otherwise its run goes back to its shard). */
  mayStart(tenantId: string): boolean {
    return this.#inProgress.of(tenantId) < this.left;
  }

  /** A call of `tenantId` started; the returned function says it ended (once, however often called). */
  started(tenantId: string): () => void {
    return this.#inProgress.add(tenantId);
  }

  /** Takes room for a call being handed off; false when none is left (the call keeps its slot). */
  take(): boolean {
    if (this.#handedOff >= this.capacity) return false;
    this.#handedOff += 1;
    return true;
  }

  /** A handed-off call ended: its room is free again. */
  free(): void {
    this.#handedOff = Math.max(0, this.#handedOff - 1);
  }
}

/** The room of this isolate: every batch's calls share it. */
export const handOffRoom = new HandOffRoom(MAX_HANDED_OFF_CALLS);

/**
 * A batch's connections that also share the room: a run of a tenant that may not start a call
 * gets no connection (its run goes back to its shard), and a connection's release ends its call.
 */
export function sharingRoom(
  connections: BatchConnections,
  room: HandOffRoom = handOffRoom,
): BatchConnections {
  return {
    mayServe: (tenantId) => connections.mayServe(tenantId) && room.mayStart(tenantId),
    async acquire(tenantId) {
      const connection = await connections.acquire(tenantId);
      if (connection === null) return null;
      // Asked after the wait for a connection: the tenant's calls may have taken the room since.
      if (!room.mayStart(tenantId)) {
        connection.release();
        return null;
      }
      const callEnded = room.started(tenantId);
      return {
        ...connection,
        release() {
          callEnded();
          connection.release();
        },
      };
    },
  };
}
