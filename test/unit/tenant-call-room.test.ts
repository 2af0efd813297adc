import { describe, expect, it } from "vitest";
import {
  HANGING_AFTER_MS,
  TENANT_CALL_ROOM,
  TenantCallRoom,
  WAIT_FOR_ROOM_MS,
} from "../../src/queue/tenant-call-room";

describe("TenantCallRoom", () => {
  it("refuses a tenant whose room stays full of slow calls, while another tenant still gets in", async () => {
    const room = new TenantCallRoom();
    for (let i = 0; i < TENANT_CALL_ROOM; i += 1) expect(await room.take("hanging")).toBe(true);
    const longAgoMs = Date.now() - HANGING_AFTER_MS;
    for (let i = 0; i < TENANT_CALL_ROOM / 2; i += 1) room.handedOff("hanging", longAgoMs);
    const startedMs = Date.now();
    expect(await room.take("hanging")).toBe(false);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(WAIT_FOR_ROOM_MS - 5);
    expect(await room.take("other")).toBe(true);
  });

  it("makes a fast tenant wait for its room, never defers it", async () => {
    const room = new TenantCallRoom();
    for (let i = 0; i < TENANT_CALL_ROOM; i += 1) await room.take("fast");
    const waiting = room.take("fast");
    setTimeout(() => room.give("fast"), WAIT_FOR_ROOM_MS * 2);
    expect(await waiting).toBe(true);
  });

  it("lets a waiting call in as soon as one of its tenant's calls ends", async () => {
    const room = new TenantCallRoom();
    for (let i = 0; i < TENANT_CALL_ROOM; i += 1) await room.take("fast");
    const waiting = room.take("fast");
    setTimeout(() => room.give("fast"), 10);
    expect(await waiting).toBe(true);
  });
});
