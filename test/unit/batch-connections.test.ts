// A consumer batch's connections under Cloudflare's six: a handed-off call keeps its connection,
// a run that will not get one soon is given back (null) instead of waiting for the hanging calls,
// and a tenant whose calls hang never takes a batch's last connection from the other tenants.
import { describe, expect, it } from "vitest";
import {
  type Connection,
  cappedConnections,
  noteSlowCall,
  uncappedConnections,
} from "../../src/delivery/batch-connections";

/** Whether the promise has settled by the time queued microtasks have run. */
async function settledValue<T>(promise: Promise<T>): Promise<T | "pending"> {
  return Promise.race([
    promise,
    new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), 5)),
  ]);
}

async function takeAll(connections: ReturnType<typeof cappedConnections>, tenantId: string, count: number) {
  const taken: Connection[] = [];
  for (let i = 0; i < count; i++) {
    const connection = await connections.acquire(tenantId);
    if (connection === null) throw new Error(`connection ${i} refused`);
    taken.push(connection);
  }
  return taken;
}

describe("a batch's connections under the cap", () => {
  it("makes a 7th run wait for one of 6 quick calls", async () => {
    const connections = cappedConnections(6);
    const [first] = await takeAll(connections, "ten_quick_a", 6);
    const seventh = connections.acquire("ten_quick_b");
    expect(await settledValue(seventh)).toBe("pending");
    first?.release();
    expect(await settledValue(seventh)).not.toBeNull();
    expect(await settledValue(seventh)).not.toBe("pending");
  });

  it("gives back every waiting run, and each newcomer, once all 6 are kept by slow calls", async () => {
    const connections = cappedConnections(6);
    const taken = await takeAll(connections, "ten_first_wave", 6);
    const waiting = [connections.acquire("ten_other"), connections.acquire("ten_first_wave")];
    for (const connection of taken.slice(0, 5)) connection.slow();
    // One connection is still live (its call may end soon): the other tenant's run waits for it.
    expect(await settledValue(waiting[0] as Promise<Connection | null>)).toBe("pending");
    taken[5]?.slow();
    expect(await Promise.all(waiting)).toEqual([null, null]);
    expect(connections.mayServe("ten_other")).toBe(false);
    expect(await connections.acquire("ten_other")).toBeNull();
    // A slow call that ends frees its connection for the batch again.
    taken[0]?.release();
    expect(connections.mayServe("ten_other")).toBe(true);
    expect(await connections.acquire("ten_other")).not.toBeNull();
  });

  it("lets runs wait for handed-off calls that are not slow: they usually end soon", async () => {
    const connections = cappedConnections(6);
    const taken = await takeAll(connections, "ten_busy_burst", 6);
    for (const connection of taken) connection.handedOff();
    const waiting = connections.acquire("ten_busy_burst");
    expect(await settledValue(waiting)).toBe("pending");
    expect(connections.mayServe("ten_busy_burst")).toBe(true);
    taken[0]?.release();
    expect(await settledValue(waiting)).not.toBeNull();
    expect(await settledValue(waiting)).not.toBe("pending");
  });

  it("keeps the last connection from a tenant whose calls hang, for the others", async () => {
    const ended = noteSlowCall("ten_hangs_here");
    try {
      const connections = cappedConnections(6);
      await takeAll(connections, "ten_hangs_here", 5);
      expect(connections.mayServe("ten_hangs_here")).toBe(false);
      expect(await connections.acquire("ten_hangs_here")).toBeNull();
      expect(connections.mayServe("ten_punctual")).toBe(true);
      expect(await connections.acquire("ten_punctual")).not.toBeNull();
    } finally {
      ended();
    }
  });

  it("gives a freed connection to another tenant's run before a hanging tenant's", async () => {
    const ended = noteSlowCall("ten_hangs_too");
    try {
      const connections = cappedConnections(6);
      const taken = await takeAll(connections, "ten_busy", 6);
      const hangingRun = connections.acquire("ten_hangs_too");
      const punctualRun = connections.acquire("ten_punctual_too");
      taken[0]?.release();
      expect(await settledValue(punctualRun)).not.toBeNull();
      expect(await settledValue(punctualRun)).not.toBe("pending");
      expect(await settledValue(hangingRun)).toBe("pending");
      taken[1]?.release();
      expect(await settledValue(hangingRun)).not.toBe("pending");
    } finally {
      ended();
    }
  });

  it("treats a tenant as hanging only while a call of it is slow", async () => {
    const ended = noteSlowCall("ten_recovers");
    ended();
    ended(); // a second call is harmless
    const connections = cappedConnections(6);
    await takeAll(connections, "ten_recovers", 6);
  });
});

describe("a batch's connections uncapped", () => {
  it("gives the slot of a handed-off call back and never refuses a run", async () => {
    const connections = uncappedConnections(2);
    const [first] = await takeAll(connections as ReturnType<typeof cappedConnections>, "ten_any", 2);
    const third = connections.acquire("ten_any");
    expect(await settledValue(third)).toBe("pending");
    first?.handedOff();
    expect(await settledValue(third)).not.toBeNull();
    expect(await settledValue(third)).not.toBe("pending");
    expect(connections.mayServe("ten_any")).toBe(true);
  });
});
