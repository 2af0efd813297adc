import { afterEach, describe, expect, it, vi } from "vitest";
import { isDeniedField, logEvent, setLogLineSink } from "../../src/log";

function capture(run: () => void): Record<string, unknown>[] {
  const spy = vi.spyOn(console, "log").mockImplementation(() => {});
  run();
  const lines = spy.mock.calls.map((call) => {
    expect(call).toHaveLength(1);
    expect(typeof call[0]).toBe("string");
    expect(String(call[0])).not.toContain("\n");
    return JSON.parse(String(call[0])) as Record<string, unknown>;
  });
  spy.mockRestore();
  return lines;
}

describe("logEvent", () => {
  afterEach(() => vi.useRealTimers());

  it("prints one JSON line with ts, event and the fields", () => {
    vi.useFakeTimers({ now: Date.parse("2026-12-01T00:00:00.000Z") });
    const lines = capture(() => logEvent("run.dispatched", { job_id: "job_1", lateness_ms: 12, ok: true }));
    expect(lines).toEqual([
      { ts: "2026-12-01T00:00:00.000Z", event: "run.dispatched", job_id: "job_1", lateness_ms: 12, ok: true },
    ]);
  });

  it("drops secrets and payloads, whatever their case or depth", () => {
    const [line] = capture(() =>
      logEvent("target.called", {
        authorization: "Bearer ek_secret",
        token: "t",
        key: "k",
        secret: "s",
        body: '{"card":"4242"}',
        headers: { "x-api-key": "k" },
        api_key: "ek_x",
        signingSecret: "whsec_x",
        Authorization: "Bearer y",
        request: { url: "https://example.com/hook", headers: { cookie: "c" }, body: "b" },
        attempts: [{ status: 500, body: "oops" }],
        idempotency_key: "job_1:2026-12-01T00:00:00.000Z",
      }),
    );
    expect(line).toEqual({
      ts: expect.any(String),
      event: "target.called",
      request: { url: "https://example.com/hook" },
      attempts: [{ status: 500 }],
      idempotency_key: "job_1:2026-12-01T00:00:00.000Z",
    });
    expect(JSON.stringify(line)).not.toMatch(/ek_|whsec_|4242|Bearer/);
  });

  it("keeps its own ts and event over fields of the same name", () => {
    const [line] = capture(() => logEvent("a", { event: "b", ts: "yesterday" }));
    expect(line?.event).toBe("a");
    expect(line?.ts).not.toBe("yesterday");
  });

  it("prints errors, dates and bigints readably", () => {
    const [line] = capture(() =>
      logEvent("x", { error: new TypeError("boom"), at: new Date(0), fence: 10n }),
    );
    expect(line).toMatchObject({
      error: { name: "TypeError", message: "boom" },
      at: "1970-01-01T00:00:00.000Z",
      fence: "10",
    });
  });
});

describe("isDeniedField", () => {
  it.each([
    ["authorization", true],
    ["x_token", true],
    ["adminToken", true],
    ["signing_secret_next", true],
    ["key", true],
    ["requestBody", true],
    ["headers", true],
    ["idempotency_key", false],
    ["job_id", false],
    ["keyboard", false],
    ["tokens_used", false],
  ])("%s -> %s", (name, denied) => {
    expect(isDeniedField(name)).toBe(denied);
  });
});

describe("the line sink (OTLP log export)", () => {
  afterEach(() => setLogLineSink(null));

  it("receives each line as printed, secrets already dropped; none set, nothing is kept", () => {
    const received: Record<string, unknown>[] = [];
    setLogLineSink((line) => received.push(line));
    const printed = capture(() => logEvent("run.outcome", { run_id: "run_1", authorization: "Bearer x" }));
    expect(received).toEqual(printed);
    expect(received[0]).not.toHaveProperty("authorization");
    setLogLineSink(null);
    capture(() => logEvent("run.outcome", { run_id: "run_2" }));
    expect(received).toHaveLength(1);
  });
});
