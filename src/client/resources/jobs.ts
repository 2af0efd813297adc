import { pageQuery, paginate, paginateItems } from "../pagination";
import type { CallOptions, Transport } from "../transport";
import type {
  BackfillResult,
  BatchResult,
  Job,
  JobBulk,
  JobBulkOperation,
  JobBulkResult,
  JobCreate,
  JobUpdate,
  ListJobsParams,
  ListRunsParams,
  Page,
  PageParams,
  Run,
  TriggerResult,
} from "../types";

export interface CreateOptions extends CallOptions {
  /** Makes retries of this create safe; the client generates one when omitted. */
  idempotencyKey?: string;
}

export interface UpdateOptions extends CallOptions {
  /** Sent as `If-Match`: the edit fails with 409 `version_conflict` if the job moved on. */
  ifMatch?: number;
}

export const MAX_BATCH_SIZE = 1000;

const jobPath = (id: string) => `/v1/jobs/${encodeURIComponent(id)}`;

/** `client.jobs`: every job route of docs/API.md. */
export class JobsResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a job; retried on network errors, 429 and 5xx under one Idempotency-Key. */
  create(job: JobCreate, options: CreateOptions = {}): Promise<Job> {
    return this.#transport.call<Job>({
      method: "POST",
      path: "/v1/jobs",
      body: job,
      idempotent: true,
      signal: options.signal,
      headers: { ...options.headers, "idempotency-key": options.idempotencyKey ?? crypto.randomUUID() },
    });
  }

  /**
   * Creates up to 1000 jobs in one call; per-item results, never throws for an invalid item.
   * Retried on network errors, 429 and 5xx under one Idempotency-Key: a retry after a lost
   * response gets the first answer back and creates nothing.
   */
  createBatch(jobs: JobCreate[], options: CreateOptions = {}): Promise<BatchResult> {
    if (jobs.length > MAX_BATCH_SIZE) {
      throw new RangeError(`a batch holds at most ${MAX_BATCH_SIZE} jobs, got ${jobs.length}`);
    }
    return this.#transport.call<BatchResult>({
      method: "POST",
      path: "/v1/jobs/batch",
      body: { jobs },
      idempotent: true,
      signal: options.signal,
      headers: { ...options.headers, "idempotency-key": options.idempotencyKey ?? crypto.randomUUID() },
    });
  }

  /**
   * Pauses, resumes or deletes the caller's jobs that match `filter` (an empty filter needs
   * `all: true`); answers how many matched and how many are now in the action's state. With more
   * than 5,000 jobs to change the API answers 202 with an operation (`id`, `state`): read its
   * progress with `bulkOperation(id)`.
   */
  bulk(body: JobBulk, options: CallOptions = {}): Promise<JobBulkResult | JobBulkOperation> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/jobs/bulk",
      body,
      idempotent: true,
      ...options,
    });
  }

  /** The progress of a bulk call answered 202 (its `id`): `state` is `succeeded` when all is done. */
  bulkOperation(id: string, options: CallOptions = {}): Promise<JobBulkOperation> {
    return this.#transport.call({
      method: "GET",
      path: `/v1/jobs/bulk/${encodeURIComponent(id)}`,
      idempotent: true,
      ...options,
    });
  }

  /** One page, newest first. */
  list(params?: ListJobsParams, options: CallOptions = {}): Promise<Page<Job>> {
    return this.#transport.call({
      method: "GET",
      path: "/v1/jobs",
      query: pageQuery(params),
      idempotent: true,
      ...options,
    });
  }

  /** Every page from `params.cursor` on: `for await (const page of client.jobs.pages())`. */
  pages(params: ListJobsParams = {}, options: CallOptions = {}): AsyncGenerator<Page<Job>, void, undefined> {
    return paginate((cursor) => this.list({ ...params, cursor }, options), params.cursor);
  }

  /** Every job across pages: `for await (const job of client.jobs.all({ status: "ACTIVE" }))`. */
  all(params: ListJobsParams = {}, options: CallOptions = {}): AsyncGenerator<Job, void, undefined> {
    return paginateItems(this.pages(params, options));
  }

  /** One job with its next `next` fire times (default 5, max 100). */
  get(id: string, params: { next?: number } = {}, options: CallOptions = {}): Promise<Job> {
    return this.#transport.call({
      method: "GET",
      path: jobPath(id),
      query: params,
      idempotent: true,
      ...options,
    });
  }

  update(id: string, patch: JobUpdate, options: UpdateOptions = {}): Promise<Job> {
    const { ifMatch, ...rest } = options;
    const headers = ifMatch === undefined ? rest.headers : { ...rest.headers, "if-match": String(ifMatch) };
    return this.#transport.call({
      method: "PATCH",
      path: jobPath(id),
      body: patch,
      idempotent: false,
      ...rest,
      headers,
    });
  }

  /** Deletes the job (status DELETED) and cancels its pending runs. */
  delete(id: string, options: CallOptions = {}): Promise<Job> {
    return this.#transport.call({ method: "DELETE", path: jobPath(id), idempotent: false, ...options });
  }

  pause(id: string, options: CallOptions = {}): Promise<Job> {
    return this.#post(`${jobPath(id)}/pause`, undefined, options);
  }

  resume(id: string, options: CallOptions = {}): Promise<Job> {
    return this.#post(`${jobPath(id)}/resume`, undefined, options);
  }

  /**
   * Runs the job now, outside its schedule. With the job's `debounce` the trigger may fold into a
   * run an earlier trigger of its key started (`folded`); `debounceKey` overrides the job's key.
   */
  trigger(id: string, options: CallOptions & { debounceKey?: string } = {}): Promise<TriggerResult> {
    const { debounceKey, ...call } = options;
    const body = debounceKey === undefined ? undefined : { debounce_key: debounceKey };
    return this.#post(`${jobPath(id)}/trigger`, body, call);
  }

  /** Creates runs for the job's instants in [from, to] (at most 1000). */
  backfill(
    id: string,
    range: { from: string; to: string },
    options: CallOptions = {},
  ): Promise<BackfillResult> {
    return this.#post(`${jobPath(id)}/backfill`, range, options);
  }

  /** The job's run history, newest first. */
  runs(
    id: string,
    params?: PageParams & Pick<ListRunsParams, "state">,
    options: CallOptions = {},
  ): Promise<Page<Run>> {
    return this.#transport.call({
      method: "GET",
      path: `${jobPath(id)}/runs`,
      query: pageQuery(params),
      idempotent: true,
      ...options,
    });
  }

  #post<T>(path: string, body: unknown, options: CallOptions): Promise<T> {
    return this.#transport.call<T>({ method: "POST", path, body, idempotent: false, ...options });
  }
}
