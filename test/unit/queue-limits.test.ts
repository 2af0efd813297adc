import { describe, expect, it } from "vitest";
import { QUEUE_SEND_LIMITS, splitIntoBatches, utf8Bytes, utf8Prefix } from "../../src/core/load/queue-limits";
import {
  MAX_STORED_HEADERS_BYTES,
  MAX_STORED_PAYLOAD_BYTES,
  type StoredPayload,
  storedPayloadJson,
} from "../../src/delivery/dead-letter-payload";

describe("splitIntoBatches", () => {
  it("never puts more than 100 messages in a batch", () => {
    const batches = splitIntoBatches(Array(250).fill(10), (bytes) => bytes);
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
  });

  it("keeps each batch's bytes, with per-message overhead, within the batch budget, in order", () => {
    const sizes = [100_000, 100_000, 50_000, 119_000, 80_000];
    const batches = splitIntoBatches(sizes, (bytes) => bytes);
    expect(batches).toEqual([[100_000, 100_000], [50_000, 119_000], [80_000]]);
    for (const batch of batches) {
      const bytes = batch.reduce((total, size) => total + size + 512, 0);
      expect(bytes).toBeLessThanOrEqual(QUEUE_SEND_LIMITS.maxBatchBytes);
    }
  });
});

describe("utf8Prefix", () => {
  it("cuts on a character boundary", () => {
    expect(utf8Prefix("héllo", 2)).toBe("h");
    expect(utf8Prefix("héllo", 3)).toBe("hé");
    expect(utf8Prefix("a😀b", 4)).toBe("a");
    expect(utf8Prefix("abc", 10)).toBe("abc");
  });
});

describe("storedPayloadJson", () => {
  const base = { method: "POST", url: "https://example.com/hook", headers: { "x-a": "1" } };

  it("stores a payload that fits whole, unflagged", () => {
    const payload = { ...base, body: { small: true } };
    expect(JSON.parse(storedPayloadJson(payload))).toEqual(payload);
  });

  it.each([
    ["plain text", "x".repeat(100_000)],
    ["quotes, which JSON doubles", '"'.repeat(100_000)],
    ["control characters, which JSON makes six bytes each", "\u0001".repeat(100_000)],
    ["multi-byte characters", "é😀".repeat(20_000)],
  ])("cuts a body of %s to fit, flagged, with its whole size", (_label, body) => {
    const json = storedPayloadJson({ ...base, body });
    expect(utf8Bytes(json)).toBeLessThanOrEqual(MAX_STORED_PAYLOAD_BYTES);
    expect(utf8Bytes(json)).toBeGreaterThan(MAX_STORED_PAYLOAD_BYTES - 64);
    const stored = JSON.parse(json) as StoredPayload;
    expect(stored).toMatchObject({ ...base, body_truncated: true, body_bytes: utf8Bytes(body) });
    expect(body.startsWith(stored.body as string)).toBe(true);
  });

  it("cuts an object body as its JSON text", () => {
    const body = { items: Array.from({ length: 20_000 }, (_, index) => index) };
    const stored = JSON.parse(storedPayloadJson({ ...base, body })) as StoredPayload;
    expect(JSON.stringify(body).startsWith(stored.body as string)).toBe(true);
    expect(stored.body_truncated).toBe(true);
  });

  it("keeps headers up to their budget and flags the rest", () => {
    const headers = Object.fromEntries(
      Array.from({ length: 10 }, (_, index) => [`x-h${index}`, "v".repeat(8_000)]),
    );
    const stored = JSON.parse(storedPayloadJson({ ...base, headers, body: "small" })) as StoredPayload;
    expect(stored.headers_truncated).toBe(true);
    expect(Object.keys(stored.headers)).toEqual(["x-h0", "x-h1"]);
    expect(utf8Bytes(JSON.stringify(stored.headers))).toBeLessThanOrEqual(MAX_STORED_HEADERS_BYTES);
    expect(stored.body).toBe("small");
    expect(stored.body_truncated).toBeUndefined();
  });
});

describe("utf8Bytes", () => {
  it("counts one byte per ASCII character and the UTF-8 length of anything else", () => {
    expect(utf8Bytes("")).toBe(0);
    expect(utf8Bytes('{"a":1}')).toBe(7);
    expect(utf8Bytes("\u0000\u007f")).toBe(2);
    expect(utf8Bytes("é")).toBe(2);
    expect(utf8Bytes("a€b")).toBe(5);
    expect(utf8Bytes("😀")).toBe(4);
    expect(utf8Bytes(`${"x".repeat(1000)}ü`)).toBe(1002);
  });
});
