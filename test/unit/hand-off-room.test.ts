// The isolate's room for handed-off calls (src/delivery/hand-off-room.ts): a tenant whose
// calls hang must never fill it, or every tenant's batch waits behind its calls' timeout.
import { describe, expect, it } from "vitest";
import { uncappedConnections } from "../../src/delivery/batch-connections";
import { HandOffRoom, sharingRoom } from "../../src/delivery/hand-off-room";

/** Starts calls of `tenantId` while it may, each handed off at once; returns how many started. */
function flood(room: HandOffRoom, tenantId: string, attempts: number): number {
  let started = 0;
  for (let i = 0; i < attempts && room.mayStart(tenantId); i++) {
    room.started(tenantId);
    expect(room.take()).toBe(true);
    started += 1;
  }
  return started;
}

describe("HandOffRoom", () => {
  it("stops a tenant whose calls hang at half the room, and still lets another tenant's call start", () => {
    const room = new HandOffRoom(100);
    expect(flood(room, "hanging", 1_000)).toBe(50);
    expect(room.mayStart("hanging")).toBe(false);
    expect(room.left).toBe(50);
    expect(room.mayStart("quick")).toBe(true);
  });

  it("leaves room free however many tenants hang, one after another", () => {
    const room = new HandOffRoom(2_048);
    const started = ["a", "b", "c", "d"].map((tenant) => flood(room, tenant, 10_000));
    // Each takes half of what the others left.
    expect(started).toEqual([1_024, 512, 256, 128]);
    expect(room.left).toBe(128);
    expect(room.mayStart("quick")).toBe(true);
    expect(room.mayStart("a")).toBe(false);
  });

  it("counts a call from its start, before its hand-off, so calls not yet handed off cannot overfill it", () => {
    const room = new HandOffRoom(10);
    const ends: (() => void)[] = [];
    while (room.mayStart("t")) ends.push(room.started("t"));
    expect(ends).toHaveLength(10);
    // All of them are handed off: the room holds them exactly.
    for (let i = 0; i < ends.length; i++) expect(room.take()).toBe(true);
    expect(room.take()).toBe(false);
  });

  it("lets a tenant start again as its calls end, and an end said twice counts once", () => {
    const room = new HandOffRoom(4);
    const first = room.started("t");
    room.take();
    const second = room.started("t");
    room.take();
    expect(room.mayStart("t")).toBe(false);
    first();
    first();
    room.free();
    expect(room.left).toBe(3);
    expect(room.mayStart("t")).toBe(true);
    second();
    room.free();
    expect(room.left).toBe(4);
  });
});

describe("sharingRoom", () => {
  it("gives a tenant that may not start a call no connection, and ends a call when its connection is released", async () => {
    const room = new HandOffRoom(2);
    const connections = sharingRoom(uncappedConnections(8), room);
    const first = await connections.acquire("hanging");
    expect(first).not.toBeNull();
    expect(room.take()).toBe(true);
    // One call in progress against one place left: no more for this tenant, still one for another.
    expect(connections.mayServe("hanging")).toBe(false);
    expect(await connections.acquire("hanging")).toBeNull();
    expect(connections.mayServe("quick")).toBe(true);
    first?.release();
    room.free();
    expect(connections.mayServe("hanging")).toBe(true);
  });
});
