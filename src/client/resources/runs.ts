import { pageQuery, paginate, paginateItems } from "../pagination";
import type { CallOptions, Transport } from "../transport";
import type {
  Alert,
  CompleteResult,
  DeadLetter,
  HeartbeatResult,
  ListAlertsParams,
  ListDeadLettersParams,
  ListRunsParams,
  Page,
  RedriveResult,
  RetryResult,
  Run,
  RunCompletion,
} from "../types";

/** The header a long-running target's reports carry instead of an API key. */
export const RUN_TOKEN_HEADER = "Edgecron-Run-Token";

/** `client.runs`: run history across jobs, one run, manual retry. */
export class RunsResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  list(params?: ListRunsParams, options: CallOptions = {}): Promise<Page<Run>> {
    return this.#transport.call({
      method: "GET",
      path: "/v1/runs",
      query: pageQuery(params),
      idempotent: true,
      ...options,
    });
  }

  pages(params: ListRunsParams = {}, options: CallOptions = {}): AsyncGenerator<Page<Run>, void, undefined> {
    return paginate((cursor) => this.list({ ...params, cursor }, options), params.cursor);
  }

  all(params: ListRunsParams = {}, options: CallOptions = {}): AsyncGenerator<Run, void, undefined> {
    return paginateItems(this.pages(params, options));
  }

  get(id: string, options: CallOptions = {}): Promise<Run> {
    return this.#transport.call({
      method: "GET",
      path: `/v1/runs/${encodeURIComponent(id)}`,
      idempotent: true,
      ...options,
    });
  }

  /** Retries a FAILED or DEAD_LETTERED run (else 409 `run_not_retryable`). */
  retry(id: string, options: CallOptions = {}): Promise<RetryResult> {
    return this.#transport.call({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(id)}/retry`,
      idempotent: false,
      ...options,
    });
  }

  /**
   * A long-running target reports its attempt's end, authenticated by the `Edgecron-Run-Token`
   * it received with the call (a client with only a `baseUrl` will do). Not retried by the client:
   * a repeat of a completion that landed answers 409 `attempt_superseded`.
   *
   * @example
   * const edgecron = new EdgecronClient({ baseUrl: "https://edgecron.example.com" });
   * await edgecron.runs.complete(runId, runToken, { status: "succeeded", result: { rows: 1200 } });
   */
  complete(
    id: string,
    runToken: string,
    completion: RunCompletion,
    options: CallOptions = {},
  ): Promise<CompleteResult> {
    return this.#transport.call({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(id)}/complete`,
      body: completion,
      idempotent: false,
      ...options,
      headers: { ...options.headers, [RUN_TOKEN_HEADER]: runToken },
    });
  }

  /**
   * Extends the attempt's lease by the job's `heartbeat_timeout`. Safe to repeat.
   * @example await edgecron.runs.heartbeat(runId, runToken) // { lease_expires_at: "..." }
   */
  heartbeat(id: string, runToken: string, options: CallOptions = {}): Promise<HeartbeatResult> {
    return this.#transport.call({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(id)}/heartbeat`,
      idempotent: true,
      ...options,
      headers: { ...options.headers, [RUN_TOKEN_HEADER]: runToken },
    });
  }
}

/** `client.deadLetters`: runs that exhausted their attempts, and redrive. */
export class DeadLettersResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  list(params?: ListDeadLettersParams, options: CallOptions = {}): Promise<Page<DeadLetter>> {
    return this.#transport.call({
      method: "GET",
      path: "/v1/dead-letters",
      query: pageQuery(params),
      idempotent: true,
      ...options,
    });
  }

  pages(params: ListDeadLettersParams = {}, options: CallOptions = {}) {
    return paginate((cursor) => this.list({ ...params, cursor }, options), params.cursor);
  }

  all(
    params: ListDeadLettersParams = {},
    options: CallOptions = {},
  ): AsyncGenerator<DeadLetter, void, undefined> {
    return paginateItems(this.pages(params, options));
  }

  redrive(id: string, options: CallOptions = {}): Promise<RedriveResult> {
    return this.#transport.call({
      method: "POST",
      path: `/v1/dead-letters/${encodeURIComponent(id)}/redrive`,
      idempotent: false,
      ...options,
    });
  }
}

/** `client.alerts`: missed runs and other alerts; acknowledge and resolve them. */
export class AlertsResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  list(params?: ListAlertsParams, options: CallOptions = {}): Promise<Page<Alert>> {
    return this.#transport.call({
      method: "GET",
      path: "/v1/alerts",
      query: pageQuery(params),
      idempotent: true,
      ...options,
    });
  }

  pages(params: ListAlertsParams = {}, options: CallOptions = {}) {
    return paginate((cursor) => this.list({ ...params, cursor }, options), params.cursor);
  }

  all(params: ListAlertsParams = {}, options: CallOptions = {}): AsyncGenerator<Alert, void, undefined> {
    return paginateItems(this.pages(params, options));
  }

  /** Marks the alert seen (it stays unresolved). Idempotent: the first acknowledgement's time stays. */
  acknowledge(id: string, options: CallOptions = {}): Promise<Alert> {
    return this.#action(id, "ack", options);
  }

  /** Resolves the alert. Idempotent: the first resolution stays. */
  resolve(id: string, options: CallOptions = {}): Promise<Alert> {
    return this.#action(id, "resolve", options);
  }

  #action(id: string, action: "ack" | "resolve", options: CallOptions): Promise<Alert> {
    return this.#transport.call({
      method: "POST",
      path: `/v1/alerts/${encodeURIComponent(id)}/${action}`,
      // Safe to retry: the server keeps the first time whatever the number of calls.
      idempotent: true,
      ...options,
    });
  }
}
