// `pdn.jobs`: the operations as jobs. `submit` sends the operation's request with
// `Prefer: respond-async` (RFC 7240) and gets `202 Accepted` with the job; `get`, `list`, `pages`
// and `cancel` are `/api/v1/jobs`; `wait` polls a job at the interval the server suggests until it
// ends, resolving with the result the synchronous call would have answered.
import { ApiPromise, type WithResponse } from './api-promise.js';
import type { CallbackUrl, Job as JobData, JobList as JobListData, JobStatus } from './api-types/index.js';
import { ApiError, InvalidInputError, JobCanceledError } from './errors.js';
import { callOf } from './internal/call.js';
import { readEnvelope } from './internal/envelope.js';
import { errorFromJobError } from './internal/error-from-response.js';
import { type Operation, type OperationParams, operationRequest } from './internal/operations.js';
import { pollDelayMs } from './internal/poll-interval.js';
import type { CallOptions, RequestSpec, Transport } from './internal/request.js';
import { sleep } from './internal/sleep.js';
import type { OperationResults, WithMeta } from './results.js';

/** What a job takes besides its operation's parameters (and, like them, the call's options). */
export interface SubmitOptions extends CallOptions {
  /**
   * `callback_url` (openapi.yaml, "Webhooks"): an `http(s)` URL the server POSTs the signed
   * `WebhookEvent` to when the job ends; check it with `verifyWebhook`. The server judges the URL.
   */
  callbackUrl?: CallbackUrl | undefined;
}

export interface WaitOptions extends CallOptions {
  /** Called with the job each time the SDK looks at it (status, `progress`), the last time included. */
  onProgress?: ((job: Job) => void) | undefined;
}

/** What a job can do besides carry the server's data. */
export interface JobMethods<O extends Operation> {
  /**
   * Polls the job until it ends: resolves with its `result` (the synchronous call's `data`, download
   * URLs signed afresh); rejects with the typed error of its `error` when it failed (InvalidInputError
   * for a bad file...), JobCanceledError when it was canceled, ExpiredError when its outputs are gone.
   */
  wait(options?: WaitOptions): ApiPromise<OperationResults[O]>;
  /** `DELETE /api/v1/jobs/{id}`: cancels the job if it is queued or running. */
  cancel(options?: CallOptions): ApiPromise<Job<O>>;
}

/**
 * A job as the server answered it (openapi.yaml `Job`), with `requestId`, `rateLimit`, `wait()` and
 * `cancel()` as non-enumerable properties: `JSON.stringify(job)` prints what the server sent.
 */
export type Job<O extends Operation = Operation> = JobData & { operation: O } & WithMeta & JobMethods<O>;

/** One page of `GET /api/v1/jobs`, newest first; `next_cursor` asks for the next (null on the last). */
export type JobList = Omit<JobListData, 'jobs'> & { jobs: Job[] } & WithMeta;

export interface ListParams extends CallOptions {
  /** Only jobs in this state. */
  status?: JobStatus | undefined;
  /** `next_cursor` of the page before. */
  cursor?: string | undefined;
  /** Jobs per page (the server's default when omitted). */
  limit?: number | undefined;
}

const ended: readonly JobStatus[] = ['succeeded', 'failed', 'canceled'];
/** The longest `Prefer: wait=N` the server honours (openapi.yaml `PreferWait`). */
const maxHoldSeconds = 10;

export class Jobs {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Starts `operation` as a job (`Prefer: respond-async`): resolves once the upload is accepted. */
  submit<O extends Operation>(operation: O, params: OperationParams[O] & SubmitOptions): ApiPromise<Job<O>> {
    return this.#call(() => {
      const { callbackUrl, ...operationParams } = params;
      if (callbackUrl !== undefined && (typeof callbackUrl !== 'string' || callbackUrl.trim() === ''))
        throw new InvalidInputError('callbackUrl must be a URL such as "https://example.com/pdn-events"');
      const { url, form, options } = operationRequest(operation, operationParams as OperationParams[O]);
      const spec: RequestSpec<Job<O>> = {
        method: 'POST',
        url,
        authenticated: true,
        headers: { prefer: 'respond-async' },
        form: [
          ...form(),
          ...(callbackUrl === undefined ? [] : [{ name: 'callback_url', value: callbackUrl }]),
        ],
        read: async (response) => {
          // Without a 202 the server did the work synchronously: it does not know jobs.
          if (response.status !== 202) throw notAJob(response, 'the server did not accept it as a job');
          return this.#job<O>(await readEnvelope(response), response);
        },
      };
      return { spec, options };
    });
  }

  /** `GET /api/v1/jobs/{id}`: the job's state now. Another user's job is a NotFoundError. */
  get(id: string, options: CallOptions = {}): ApiPromise<Job> {
    return this.#call(() => ({ spec: this.#jobRequest('GET', id), options }));
  }

  /** `DELETE /api/v1/jobs/{id}`: cancels a queued or running job (its tools stopped, its files removed). */
  cancel(id: string, options: CallOptions = {}): ApiPromise<Job> {
    return this.#call(() => ({ spec: this.#jobRequest('DELETE', id), options }));
  }

  /** `GET /api/v1/jobs`: one page of your recent jobs. Reading jobs does not count against the limit. */
  list(params: ListParams = {}): ApiPromise<JobList> {
    const { status, cursor, limit, ...options } = params;
    const query = new URLSearchParams();
    if (status !== undefined) query.set('status', status);
    if (cursor !== undefined) query.set('cursor', cursor);
    if (limit !== undefined) query.set('limit', String(limit));
    const url = `/api/v1/jobs${query.size > 0 ? `?${query}` : ''}`;
    return this.#call(() => ({
      spec: {
        method: 'GET',
        url,
        authenticated: true,
        read: async (response) => {
          const page = await readEnvelope<JobListData>(response);
          if (!Array.isArray(page.jobs)) throw notAJob(response, 'no `jobs` list');
          page.jobs = page.jobs.map((job) => this.#job(job, response));
          return page as JobList;
        },
      },
      options,
    }));
  }

  /** Every page of `list(params)`, one request each, following `next_cursor`: `for await (const page of ...)`. */
  async *pages(params: Omit<ListParams, 'cursor'> = {}): AsyncGenerator<JobList, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...params, ...(cursor === undefined ? {} : { cursor }) });
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Polls job `id` until it ends; see `Job.wait`. */
  wait<O extends Operation = Operation>(
    id: string,
    options: WaitOptions = {},
  ): ApiPromise<OperationResults[O]> {
    const { onProgress, ...callOptions } = options;
    return new ApiPromise(
      (async (): Promise<WithResponse<OperationResults[O]>> => {
        const timeoutMs = callOptions.timeout ?? this.#transport.timeoutMs;
        let holdSeconds = 0;
        for (;;) {
          const asked = Date.now();
          const headers = holdSeconds > 0 ? { prefer: `wait=${holdSeconds}` } : undefined;
          const { data: job, response } = await this.#call(() => ({
            spec: { ...this.#jobRequest('GET', id), ...(headers ? { headers } : {}) },
            options: callOptions,
          })).withResponse();
          onProgress?.(job);
          if (ended.includes(job.status)) return { data: outcome(job) as OperationResults[O], response };
          // The next look asks the server to hold its answer until the job ends, at most the interval
          // it suggests (openapi.yaml `PreferWait`), so a result arrives when it is ready; an answer
          // that came sooner with the job unfinished (a server that does not hold) waits out the rest.
          const delayMs = pollDelayMs(job.poll_after_seconds);
          const early = holdSeconds * 1000 - (Date.now() - asked);
          if (early > 0) await sleep(early, callOptions.signal);
          holdSeconds = Math.max(
            0,
            Math.min(maxHoldSeconds, Math.floor(delayMs / 1000), Math.floor(timeoutMs / 1000) - 1),
          );
          if (holdSeconds === 0) await sleep(delayMs, callOptions.signal);
        }
      })(),
    );
  }

  #jobRequest(method: 'GET' | 'DELETE', id: string): RequestSpec<Job> {
    if (typeof id !== 'string' || id.trim() === '') throw new InvalidInputError('a job id is required');
    return {
      method,
      url: `/api/v1/jobs/${encodeURIComponent(id)}`,
      authenticated: true,
      read: async (response) => this.#job(await readEnvelope<JobData>(response), response),
    };
  }

  /** The server's job with its methods attached, non-enumerable like `requestId`. */
  #job<O extends Operation>(data: JobData, response: Response): Job<O> {
    if (typeof data.id !== 'string' || typeof data.status !== 'string')
      throw notAJob(response, 'no job `id`');
    const { id } = data;
    const methods: JobMethods<O> = {
      wait: (options) => this.wait<O>(id, options),
      cancel: (options) => this.cancel(id, options) as ApiPromise<Job<O>>,
    };
    for (const [name, value] of Object.entries(methods)) {
      Object.defineProperty(data, name, { value, enumerable: false });
    }
    return data as Job<O>;
  }

  /** Runs a call; `build` may throw (validation), which rejects the returned promise. */
  #call<T>(build: () => { spec: RequestSpec<T>; options: CallOptions }): ApiPromise<T> {
    return callOf(this.#transport, build);
  }
}

/** What `wait` settles with once a job has ended. */
function outcome(job: Job): OperationResults[Operation] {
  if (job.status === 'canceled') throw new JobCanceledError(job.id);
  if (job.status === 'failed') {
    throw job.error
      ? errorFromJobError(job.error, job.requestId)
      : new ApiError('invalid_response', `Job ${job.id} failed and its answer says not why`);
  }
  if (job.expired || job.result === undefined) {
    // Succeeded, but its outputs are past their retention (openapi.yaml `Job.expired`).
    throw errorFromJobError(
      { code: 'expired', message: `The outputs of job ${job.id} have expired; submit it again` },
      job.requestId,
    );
  }
  Object.defineProperties(job.result, {
    requestId: { value: job.requestId, enumerable: false },
    rateLimit: { value: job.rateLimit, enumerable: false },
  });
  return job.result as OperationResults[Operation];
}

function notAJob(response: Response, why: string): ApiError {
  return new ApiError('invalid_response', `The server's answer is not a pdn job: ${why}`, {
    status: response.status,
    headers: response.headers,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}
