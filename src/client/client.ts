import { CalendarsResource } from "./resources/calendars";
import { JobsResource } from "./resources/jobs";
import { AlertsResource, DeadLettersResource, RunsResource } from "./resources/runs";
import { ScheduleFilesResource } from "./resources/schedule-files";
import { ApiKeysResource, TenantsResource } from "./resources/tenants";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry";
import {
  type CallOptions,
  type FetchLike,
  type RawResponse,
  type RequestSpec,
  sleepMs,
  Transport,
} from "./transport";
import type { Health, Me, PreviewRequest, PreviewResult, Stats, TzdataStatus } from "./types";

export interface EdgecronClientOptions {
  /** Where the API lives, e.g. `http://127.0.0.1:8787` or `https://edgecron.example.workers.dev`. */
  baseUrl: string;
  /** Admin token or tenant API key (`ek_...`), sent as `Authorization: Bearer`. */
  token?: string;
  /** Admin only: act on this tenant's resources (`Edgecron-Tenant`). */
  tenant?: string;
  /** Defaults to the global fetch (Node 20, Workers, browsers). */
  fetch?: FetchLike;
  /** Retries of idempotent calls: a count (default 3) or the whole policy. */
  retries?: number | Partial<RetryPolicy>;
  /** Longest wait for one attempt (response and body) before it counts as a network error; default 30 s, 0 disables. */
  timeoutMs?: number;
  /** For tests: randomness of the backoff jitter and the sleep between attempts. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Typed client for the edgecron v1 API. No dependencies beyond fetch.
 * @example
 * const client = new EdgecronClient({ baseUrl: "http://127.0.0.1:8787", token: "dev-admin-token" });
 * const job = await client.jobs.create({ name: "hello", schedule: { type: "interval", every: "1m" },
 *   target: { url: "https://example.com/hook" } });
 */
export class EdgecronClient {
  readonly jobs: JobsResource;
  readonly runs: RunsResource;
  readonly deadLetters: DeadLettersResource;
  readonly alerts: AlertsResource;
  readonly tenants: TenantsResource;
  readonly apiKeys: ApiKeysResource;
  readonly calendars: CalendarsResource;
  readonly scheduleFiles: ScheduleFilesResource;
  readonly #transport: Transport;
  readonly #options: EdgecronClientOptions;

  constructor(options: EdgecronClientOptions) {
    if (!options.baseUrl) throw new TypeError("EdgecronClient needs a baseUrl");
    this.#options = options;
    const fetchImpl = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      token: options.token,
      tenant: options.tenant,
      fetch: fetchImpl,
      retry: retryPolicyFrom(options.retries),
      timeoutMs: options.timeoutMs ?? 30_000,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? sleepMs,
    });
    this.jobs = new JobsResource(this.#transport);
    this.runs = new RunsResource(this.#transport);
    this.deadLetters = new DeadLettersResource(this.#transport);
    this.alerts = new AlertsResource(this.#transport);
    this.tenants = new TenantsResource(this.#transport);
    this.apiKeys = new ApiKeysResource(this.#transport);
    this.calendars = new CalendarsResource(this.#transport);
    this.scheduleFiles = new ScheduleFilesResource(this.#transport);
  }

  /** A client with the same settings acting on `tenantId` (admin token only). */
  withTenant(tenantId: string): EdgecronClient {
    return new EdgecronClient({ ...this.#options, tenant: tenantId });
  }

  /** Who the token belongs to. */
  me(options: CallOptions = {}): Promise<Me> {
    return this.#transport.call({ method: "GET", path: "/v1/me", idempotent: true, ...options });
  }

  health(options: CallOptions = {}): Promise<Health> {
    return this.#transport.call({ method: "GET", path: "/healthz", idempotent: true, ...options });
  }

  /** The OpenAPI document of the running API. */
  openapi(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#transport.call({ method: "GET", path: "/v1/openapi.json", idempotent: true, ...options });
  }

  stats(options: CallOptions = {}): Promise<Stats> {
    return this.#transport.call({ method: "GET", path: "/v1/stats", idempotent: true, ...options });
  }

  /** Admin token: the tz database version of every shard's timers and any re-derivation in progress. */
  tzdata(options: CallOptions = {}): Promise<TzdataStatus> {
    return this.#transport.call({ method: "GET", path: "/v1/tzdata", idempotent: true, ...options });
  }

  /** The next `count` fire times of a schedule; a pure computation, so retried like a GET. */
  previewSchedule(request: PreviewRequest, options: CallOptions = {}): Promise<PreviewResult> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/schedules/preview",
      body: request,
      idempotent: true,
      ...options,
    });
  }

  /** Escape hatch: any route, with status and headers (`Idempotent-Replayed`, `Retry-After`). */
  request<T = unknown>(spec: RequestSpec): Promise<RawResponse<T>> {
    return this.#transport.send<T>(spec);
  }
}

function retryPolicyFrom(retries: EdgecronClientOptions["retries"]): RetryPolicy {
  if (typeof retries === "number") return { ...DEFAULT_RETRY_POLICY, retries };
  return { ...DEFAULT_RETRY_POLICY, ...retries };
}
