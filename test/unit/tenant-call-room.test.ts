import { describe, expect, it } from "vitest";
import { TENANT_CALL_ROOM, TenantCallRoom, WAIT_FOR_ROOM_MS } from "../../src/queue/tenant-call-room";

describe("TenantCallRoom", () => {
  it("refuses a tenant whose room stays full, while another tenant still gets in", async () => {
    const room = new TenantCallRoom();
    for (let i = 0; i < TENANT_CALL_ROOM; i += 1) expect(await room.take("hanging")).toBe(true);
    const startedMs = Date.now();
    expect(await room.take("hanging")).toBe(false);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(WAIT_FOR_ROOM_MS - 5);
    expect(await room.take("other")).toBe(true);
  });

  it("lets a waiting call in as soon as one of its tenant's calls ends", async () => {
    const room = new TenantCallRoom();
    for (let i = 0; i < TENANT_CALL_ROOM; i += 1) await room.take("fast");
    const waiting = room.take("fast");
    setTimeout(() => room.give("fast"), 10);
    expect(await waiting).toBe(true);
  });
});
