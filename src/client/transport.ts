// One HTTP round trip with auth, JSON, problem parsing and retries of idempotent calls.
import { EdgecronNetworkError, EdgecronProblemError, toProblem } from "./errors";
import { isRetryableStatus, nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from "./retry";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
export type QueryValue = string | number | boolean | undefined | null;

export interface TransportConfig {
  baseUrl: string;
  token: string | undefined;
  /** Sent as `Edgecron-Tenant`: the admin token acting on one tenant's resources. */
  tenant: string | undefined;
  fetch: FetchLike;
  retry: RetryPolicy;
  /** Longest wait for one attempt's response and body; 0 waits forever. */
  timeoutMs: number;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface RequestSpec extends CallOptions {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Safe to send twice: GET, and POSTs the server deduplicates (Idempotency-Key) or that are pure. */
  idempotent: boolean;
}

export interface RawResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

export class Transport {
  readonly config: TransportConfig;

  constructor(config: TransportConfig) {
    this.config = config;
  }

  async call<T>(spec: RequestSpec): Promise<T> {
    return (await this.send<T>(spec)).body;
  }

  /** Like `call` but also returns the status and headers (e.g. `Idempotent-Replayed`). */
  async send<T>(spec: RequestSpec): Promise<RawResponse<T>> {
    const url = buildUrl(this.config.baseUrl, spec.path, spec.query);
    const init: RequestInit = {
      method: spec.method,
      headers: this.headersFor(spec),
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    };
    const { retry, random, sleep } = this.config;
    for (let retryIndex = 0; ; retryIndex++) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      const outcome = await this.attempt(url, init, spec.signal);
      if ("error" in outcome) {
        if (spec.signal?.aborted) throw outcome.error;
        const delayMs = spec.idempotent ? nextRetryDelayMs(retryIndex, null, retry, random) : null;
        if (delayMs === null) throw new EdgecronNetworkError(url, outcome.error);
        await sleep(delayMs, spec.signal);
        continue;
      }
      const { response, text } = outcome;
      if (response.ok)
        return { status: response.status, headers: response.headers, body: parseBody<T>(text, response) };
      if (spec.idempotent && isRetryableStatus(response.status)) {
        const retryAfterMs = parseRetryAfterMs(response.headers.get("retry-after"), Date.now());
        const delayMs = nextRetryDelayMs(retryIndex, retryAfterMs, retry, random);
        if (delayMs !== null) {
          await sleep(delayMs, spec.signal);
          continue;
        }
      }
      throw new EdgecronProblemError(toProblem(response.status, response.statusText, text), response.headers);
    }
  }

  /**
   * One fetch and its body under the per-attempt timeout; a hung connection becomes an error the
   * retry loop can handle. The caller's signal still cancels everything.
   */
  private async attempt(
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; text: string } | { error: unknown }> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const { timeoutMs } = this.config;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => controller.abort(new Error(`no response within ${timeoutMs} ms`)), timeoutMs)
        : undefined;
    try {
      const response = await this.config.fetch(url, { ...init, signal: controller.signal });
      return { response, text: await response.text() };
    } catch (error) {
      return { error: controller.signal.aborted && !signal?.aborted ? controller.signal.reason : error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private headersFor(spec: RequestSpec): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json, application/problem+json" };
    if (this.config.token) headers.authorization = `Bearer ${this.config.token}`;
    if (this.config.tenant) headers["edgecron-tenant"] = this.config.tenant;
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    return { ...headers, ...spec.headers };
  }
}

export function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> = {}): string {
  // Relative resolution keeps a base path (https://example.com/edgecron/ + v1/jobs).
  const url = new URL(path.replace(/^\/+/, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

function parseBody<T>(text: string, response: Response): T {
  if (text === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(
      `expected JSON from ${response.url || "the API"} (HTTP ${response.status}), got: ${text.slice(0, 200)}`,
    );
  }
}

/** setTimeout as a promise that rejects when `signal` aborts. */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
