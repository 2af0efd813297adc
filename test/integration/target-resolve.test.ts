// What the target call does about names and forwarded headers: a pluggable resolver (DNS over
// HTTPS, off unless TARGET_DNS_RESOLVER is set) refuses names that resolve to special-purpose
// addresses, and hop-by-hop headers stored before they were refused are never sent.
import { describe, expect, it, vi } from "vitest";
import type { HttpTarget } from "../../src/core/jobs/job-spec";
import { dohResolver, resolverFromEnv } from "../../src/delivery/dns-resolver";
import { type CallTargetInput, callTarget } from "../../src/delivery/target-call";

interface Seen {
  url: string;
  headers: Record<string, string>;
}

function recordingFetch(answer: (request: Request) => Response = () => new Response("ok")) {
  const seen: Seen[] = [];
  const fetchImpl = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ url: request.url, headers: Object.fromEntries(request.headers) });
    return answer(request);
  }) as unknown as typeof fetch;
  return { seen, fetchImpl };
}

function input(target: Partial<HttpTarget>, overrides: Partial<CallTargetInput>): CallTargetInput {
  return {
    target: { type: "http", url: "https://hooks.example.com/ok", method: "POST", headers: {}, ...target },
    runId: "run_1",
    jobId: "job_1",
    scheduledAtMs: 0,
    attempt: 1,
    idempotencyKey: "job_1:0",
    secrets: [],
    timeoutMs: 5_000,
    allowPrivate: false,
    nowMs: 0,
    ...overrides,
  };
}

/** A DoH JSON endpoint answering from a table, counting questions. */
function dohServer(records: Record<string, { type: number; data: string; TTL: number }[]>, status = 200) {
  const questions: string[] = [];
  const { fetchImpl } = recordingFetch((request) => {
    const url = new URL(request.url);
    const name = url.searchParams.get("name") ?? "";
    const type = url.searchParams.get("type") === "A" ? 1 : 28;
    questions.push(`${name}/${url.searchParams.get("type")}`);
    expect(request.headers.get("accept")).toBe("application/dns-json");
    const answer = (records[name] ?? []).filter((record) => record.type === type);
    return Response.json({ Status: records[name] ? 0 : 3, Answer: answer }, { status });
  });
  return { questions, fetchImpl };
}

describe("resolving the target name at call time", () => {
  it("refuses a name that resolves to loopback, permanently, without calling it", async () => {
    const { seen, fetchImpl } = recordingFetch();
    const resolveHost = async () => ["198.51.100.1", "127.0.0.1"];
    const outcome = await callTarget(input({}, { fetchImpl, resolveHost }));
    expect(outcome).toMatchObject({ kind: "permanent", status: null });
    expect(outcome.kind === "permanent" && outcome.error).toMatch(
      /hooks\.example\.com resolves to a private address \(198\.51\.100\.1 is documentation/,
    );
    expect(seen).toEqual([]);
  });

  it("calls a name that resolves to public addresses only", async () => {
    const { seen, fetchImpl } = recordingFetch();
    const outcome = await callTarget(input({}, { fetchImpl, resolveHost: async () => ["93.184.215.14"] }));
    expect(outcome.kind).toBe("success");
    expect(seen.map((call) => call.url)).toEqual(["https://hooks.example.com/ok"]);
  });

  it("retries when the resolver cannot answer", async () => {
    const { seen, fetchImpl } = recordingFetch();
    const resolveHost = async () => {
      throw new Error("DNS over HTTPS answered 502");
    };
    const outcome = await callTarget(input({}, { fetchImpl, resolveHost }));
    expect(outcome).toMatchObject({ kind: "retryable", status: null, retryAfterMs: null });
    expect(seen).toEqual([]);
  });

  it("refuses a name the DoH resolver answers NXDOMAIN or NODATA for, without calling it", async () => {
    // nodata.example exists (NOERROR) with only a TXT record; gone.example does not (NXDOMAIN).
    const server = dohServer({ "nodata.example": [{ type: 16, data: "v=spf1 -all", TTL: 60 }] });
    const resolveHost = dohResolver("https://doh.example/dns-query", server.fetchImpl);
    for (const url of ["https://gone.example/hook", "https://nodata.example/hook"]) {
      const { seen, fetchImpl } = recordingFetch();
      const outcome = await callTarget(input({ url }, { fetchImpl, resolveHost }));
      expect(outcome, url).toMatchObject({ kind: "permanent", status: null });
      expect(outcome.kind === "permanent" && outcome.error).toMatch(/has no public address/);
      expect(seen).toEqual([]);
    }
  });

  it("resolves nothing in local development (private targets allowed) or without a resolver", async () => {
    const resolveHost = vi.fn(async () => ["127.0.0.1"]);
    const { fetchImpl } = recordingFetch();
    expect((await callTarget(input({}, { fetchImpl, resolveHost, allowPrivate: true }))).kind).toBe(
      "success",
    );
    expect((await callTarget(input({}, { fetchImpl }))).kind).toBe("success");
    expect(resolveHost).not.toHaveBeenCalled();
  });
});

describe("the DNS-over-HTTPS resolver", () => {
  it("returns A and AAAA answers, skipping CNAMEs, and caches them for their TTL (at most 60 s)", async () => {
    const server = dohServer({
      "hooks.example.com": [
        { type: 5, data: "edge.example.net.", TTL: 300 },
        { type: 1, data: "127.0.0.1", TTL: 300 },
        { type: 28, data: "::1", TTL: 30 },
      ],
    });
    let nowMs = 1_000_000;
    const resolve = dohResolver("https://doh.example/dns-query", server.fetchImpl, () => nowMs);
    expect(await resolve("hooks.example.com")).toEqual(["127.0.0.1", "::1"]);
    nowMs += 29_000;
    expect(await resolve("hooks.example.com")).toEqual(["127.0.0.1", "::1"]);
    expect(server.questions).toEqual(["hooks.example.com/A", "hooks.example.com/AAAA"]);
    nowMs += 2_000; // past the smallest TTL (30 s)
    await resolve("hooks.example.com");
    expect(server.questions).toHaveLength(4);
  });

  it("answers no addresses for a name that does not exist, and throws on a server error", async () => {
    expect(await dohResolver("https://doh.example/q", dohServer({}).fetchImpl)("nope.example")).toEqual([]);
    const failing = dohServer({}, 503);
    await expect(dohResolver("https://doh.example/q", failing.fetchImpl)("x.example")).rejects.toThrow(/503/);
  });

  it('is chosen by TARGET_DNS_RESOLVER: off when unset, empty or "off"', () => {
    expect(resolverFromEnv({})).toBeUndefined();
    expect(resolverFromEnv({ TARGET_DNS_RESOLVER: "" })).toBeUndefined();
    expect(resolverFromEnv({ TARGET_DNS_RESOLVER: "off" })).toBeUndefined();
    const resolver = resolverFromEnv({ TARGET_DNS_RESOLVER: "https://cloudflare-dns.com/dns-query" });
    expect(typeof resolver).toBe("function");
    expect(resolverFromEnv({ TARGET_DNS_RESOLVER: "https://cloudflare-dns.com/dns-query" })).toBe(resolver);
  });
});

describe("forwarded headers", () => {
  it("never sends hop-by-hop or framing headers a job stored before they were refused", async () => {
    const { seen, fetchImpl } = recordingFetch();
    const headers = {
      Expect: "100-continue",
      Connection: "close",
      "Proxy-Authorization": "x",
      TE: "trailers",
      "x-keep": "1",
    };
    const outcome = await callTarget(input({ headers }, { fetchImpl }));
    expect(outcome.kind).toBe("success");
    const sent = seen[0]?.headers ?? {};
    for (const name of ["expect", "connection", "proxy-authorization", "te"])
      expect(sent[name], name).toBeUndefined();
    expect(sent["x-keep"]).toBe("1");
  });
});
