// The SDK's error family (STYLE.md principle 3): one base class, one subclass per wire code of
// openapi.yaml `ErrorCode`, and three transport errors that never reached an HTTP answer.
// `errorFromResponse` (internal/error-from-response.ts) is the one factory that picks the subclass.
import type { ErrorCode } from './api-types/index.js';
import type { RateLimitInfo } from './results.js';

/** Every code a `PdnError` can carry: the server's wire codes plus the SDK's transport codes. */
export type PdnErrorCode =
  | ErrorCode
  | 'invalid_response'
  | 'connection_error'
  | 'cors_refused'
  | 'timeout'
  | 'aborted'
  | 'job_canceled'
  | 'login_denied'
  | 'login_expired'
  | 'login_refused';

/** Base of every error the SDK throws (file system errors of `download(d, path)` excepted). */
export class PdnError extends Error {
  override name = 'PdnError';
  readonly code: PdnErrorCode;

  constructor(code: PdnErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface ApiErrorInit {
  /** HTTP status; `undefined` when the SDK refused the call itself, before sending anything. */
  status?: number | undefined;
  requestId?: string | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * An error answer from the server, or the same refusal made by the SDK before sending (bad level,
 * one file for merge, a string as file content, an expired download). Those local refusals use the
 * same class as the server's, so one `instanceof` or `error.code` check covers both; they are told
 * apart by `status === undefined` (and have no `requestId`).
 */
export class ApiError extends PdnError {
  override name = 'ApiError';
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(code: PdnErrorCode, message: string, init: ApiErrorInit = {}) {
    super(code, message, { cause: init.cause });
    this.status = init.status;
    this.requestId = init.requestId;
    this.headers = init.headers ?? new Headers();
  }
}

/** 401 `unauthorized`: the API key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  constructor(message: string, init?: ApiErrorInit) {
    super('unauthorized', message, init);
  }
}

/** 400 `invalid_input`: the body or parameters fail validation (server side or in the SDK). */
export class InvalidInputError extends ApiError {
  override name = 'InvalidInputError';
  constructor(message: string, init?: ApiErrorInit) {
    super('invalid_input', message, init);
  }
}

/** 413 `payload_too_large`: a file or the whole upload exceeds the plan's size limit. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
  constructor(message: string, init?: ApiErrorInit) {
    super('payload_too_large', message, init);
  }
}

/** 5xx `internal_error` (any 5xx status without a class of its own, e.g. proxies' 502 and 504). */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
  constructor(message: string, init?: ApiErrorInit) {
    super('internal_error', message, init);
  }
}

/** 403 `forbidden`: a download URL's signature is missing, malformed or wrong. */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  constructor(message: string, init?: ApiErrorInit) {
    super('forbidden', message, init);
  }
}

/** 404 `not_found`: the output behind a download URL no longer exists (or an unknown route). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(message: string, init?: ApiErrorInit) {
    super('not_found', message, init);
  }
}

/** 410 `expired`: the download URL has expired (also refused locally from `expires_at`). */
export class ExpiredError extends ApiError {
  override name = 'ExpiredError';
  constructor(message: string, init?: ApiErrorInit) {
    super('expired', message, init);
  }
}

/** 429 `rate_limited`: the plan's hourly limit is exceeded, after any retries the SDK made. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** Seconds to wait before the next call would be allowed (the `Retry-After` header), if sent. */
  readonly retryAfter: number | undefined;
  readonly rateLimit: RateLimitInfo | undefined;

  constructor(message: string, init: RateLimitInit = {}, code: PdnErrorCode = 'rate_limited') {
    super(code, message, init);
    this.retryAfter = init.retryAfter;
    this.rateLimit = init.rateLimit;
  }
}

type RateLimitInit = ApiErrorInit & {
  retryAfter?: number | undefined;
  rateLimit?: RateLimitInfo | undefined;
};

/**
 * 429 `too_many_jobs`: the plan's cap on unfinished jobs is reached. A kind of
 * RateLimitError, retried the same way after its `Retry-After`; `code` tells it from the hourly limit.
 */
export class TooManyJobsError extends RateLimitError {
  override name = 'TooManyJobsError';
  constructor(message: string, init: RateLimitInit = {}) {
    super(message, init, 'too_many_jobs');
  }
}

/**
 * 503 `service_unavailable`: the server is shutting down (or a proxy in front of it has no server to
 * offer). Retried, after `retryAfter` when the server suggests it.
 */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
  /** Seconds after which sending the request again is worth it (`error.retry_after_seconds`), if sent. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    init: ApiErrorInit & { retryAfter?: number | undefined } = {},
    code: PdnErrorCode = 'service_unavailable',
  ) {
    super(code, message, init);
    this.retryAfter = init.retryAfter;
  }
}

/**
 * 503 `server_busy`: the call would have waited longer for a job slot than the server allows (or
 * waited that long and was withdrawn unrun), or its user already has as many synchronous calls in
 * progress as its plan allows; not counted. Sending it as a job (`pdn.jobs.submit`) queues it
 * instead. A kind of ServiceUnavailableError, retried the same way after its
 * `retryAfter`; `code` tells it from a shutdown.
 */
export class ServerBusyError extends ServiceUnavailableError {
  override name = 'ServerBusyError';
  constructor(message: string, init: ApiErrorInit & { retryAfter?: number | undefined } = {}) {
    super(message, init, 'server_busy');
  }
}

/**
 * 507 `insufficient_storage`: the server's disk is full. Nothing is wrong with the request, but a full
 * disk seldom clears within a retry's wait, so the SDK does not retry it: send it again yourself after
 * `retryAfter` seconds, or later.
 */
export class InsufficientStorageError extends ApiError {
  override name = 'InsufficientStorageError';
  /** Seconds after which sending the request again is worth it (`error.retry_after_seconds`), if sent. */
  readonly retryAfter: number | undefined;

  constructor(message: string, init: ApiErrorInit & { retryAfter?: number | undefined } = {}) {
    super('insufficient_storage', message, init);
    this.retryAfter = init.retryAfter;
  }
}

/**
 * 501 `converter_unavailable`: the server has no converter for this operation (LibreOffice for Office
 * to PDF, Chromium for HTML to PDF); the message names the tool. Nothing is wrong with the request and
 * sending it again to the same server gives the same answer, so the SDK does not retry it: send it to
 * a server that has the converter (its `GET /healthz` lists them under `converters`).
 */
export class ConverterUnavailableError extends ApiError {
  override name = 'ConverterUnavailableError';
  constructor(message: string, init?: ApiErrorInit) {
    super('converter_unavailable', message, init);
  }
}

/**
 * A job you waited for was canceled (`DELETE /api/v1/jobs/{id}`, here or elsewhere) before it
 * finished: `job.wait()` rejects with this. Not an HTTP error: the job's answer was a 200.
 */
export class JobCanceledError extends PdnError {
  override name = 'JobCanceledError';
  constructor(readonly jobId: string) {
    super('job_canceled', `Job ${jobId} was canceled before it finished`);
  }
}

/** A browser sign-in (`pdn.login`) ended without a key: denied, expired, or refused by the server. */
export class LoginRefusedError extends PdnError {
  override name = 'LoginRefusedError';
  constructor(code: 'login_denied' | 'login_expired' | 'login_refused', message: string) {
    super(code, message);
  }
}

/** The request never got an HTTP answer: DNS, refused or reset connection, TLS... Retried. */
export class ConnectionError extends PdnError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }, code: PdnErrorCode = 'connection_error') {
    super(code, message, options);
  }
}

/**
 * In a browser, the server answered but did not allow this page's origin (CORS), so the browser kept
 * the answer from the page: a fetch that fails with no status and no body, which the SDK tells from a
 * server that is down by asking again in `no-cors` mode. Not retried: the answer would be the same
 * until the server allows the origin. A kind of ConnectionError, as the page got no answer it may read.
 */
export class CorsRefusalError extends ConnectionError {
  override name = 'CorsRefusalError';
  /** The page's origin, which the server must allow. */
  readonly origin: string;

  constructor(url: string, origin: string, options?: { cause?: unknown }) {
    super(
      `The browser blocked the call to ${url}: the server did not allow this page's origin ${origin} ` +
        '(CORS). The server must allow it; on a pdn server its operator adds the origin to ' +
        `PDN_CORS_ORIGINS (e.g. PDN_CORS_ORIGINS=${origin}) and restarts it.`,
      options,
      'cors_refused',
    );
    this.origin = origin;
  }
}

/** One attempt took longer than the `timeout` option. A kind of connection failure: retried. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms`, undefined, 'timeout');
  }
}

/** The caller's `signal` aborted the call. Never retried. */
export class AbortError extends PdnError {
  override name = 'AbortError';
  constructor(options?: { cause?: unknown }) {
    super('aborted', 'Request was aborted', options);
  }
}

/**
 * verifyWebhook's refusal (webhooks.ts; openapi.yaml, "Webhooks"): the `Pdn-Signature` is missing,
 * malformed, does not match the body and secret, or its timestamp is out of tolerance. Never from a call.
 */
export class WebhookVerificationError extends PdnError {
  override name = 'WebhookVerificationError';
  constructor(message: string) {
    super('invalid_input', message);
  }
}
