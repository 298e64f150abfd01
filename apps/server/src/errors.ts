// The server's error vocabulary: one class per wire code of the OpenAPI `ErrorCode` enum (and status:
// `invalid_input` also goes out as 417).
// Engines, accounts, storage and routes throw these; the error middleware (src/http/middleware/
// error-envelope.ts) is the only place that turns them into the spec's JSON envelope. Messages of
// these errors are shown to clients; anything else that is thrown becomes a generic 500.
import type { ErrorCode } from '@pdn/api-types';

export abstract class ApiError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  /** Extra response headers this error requires (e.g. Retry-After on 429). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The envelope's `error.retry_after_seconds`: when the same request is worth sending again. Only
   * 503 and 507 carry it (openapi.yaml `Error`); the Retry-After header stays the 429's alone.
   */
  readonly retryAfterSeconds: number | undefined;
  /**
   * A 5xx the server answers by design (it is busy or stopping), not a fault: the error middleware
   * logs it as a refusal, below `error` (http/refusal-log.ts).
   */
  readonly refusal: boolean;

  constructor(
    message: string,
    options: { cause?: unknown; headers?: Record<string, string>; refusal?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.headers = options.headers ?? {};
    this.refusal = options.refusal ?? false;
  }
}

export class InvalidInputError extends ApiError {
  readonly code = 'invalid_input';
  readonly status = 400;
}

export class UnauthorizedError extends ApiError {
  readonly code = 'unauthorized';
  readonly status = 401;
}

export class ForbiddenError extends ApiError {
  readonly code = 'forbidden';
  readonly status = 403;
}

export class NotFoundError extends ApiError {
  readonly code = 'not_found';
  readonly status = 404;
}

export class MethodNotAllowedError extends ApiError {
  readonly code = 'method_not_allowed';
  readonly status = 405;
}

export class ExpiredError extends ApiError {
  readonly code = 'expired';
  readonly status = 410;
}

/** An `Expect` header other than `100-continue` (RFC 9110 section 10.1.1). */
export class ExpectationFailedError extends ApiError {
  readonly code = 'invalid_input';
  readonly status = 417;
}

export class PayloadTooLargeError extends ApiError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

/**
 * A request body that stopped coming at the minimum pace (openapi.yaml, "Upload limits";
 * http/upload-pace.ts). Node's own request timeouts answer the same code (http/client-error.ts).
 */
export class RequestTimeoutError extends ApiError {
  readonly code = 'request_timeout';
  readonly status = 408;
}

export class RateLimitedError extends ApiError {
  readonly code = 'rate_limited';
  readonly status = 429;
}

/**
 * Too many unfinished jobs for the plan (openapi.yaml, "Jobs"): a 429 of its own, since
 * `rate_limited` names the hourly limit. Carries Retry-After like every 429.
 */
export class TooManyJobsError extends ApiError {
  readonly code = 'too_many_jobs';
  readonly status = 429;
}

/**
 * A tool failed on input that looked valid (a crash, a timeout, an unreadable output). Its message is
 * for the log only: clients see a generic `internal_error` text.
 */
export class InternalError extends ApiError {
  readonly code = 'internal_error';
  readonly status = 500;
}

/**
 * The operation's converter (LibreOffice, Chromium) is not installed where the job runs (openapi.yaml,
 * "Converters"). The request is well formed and nothing went wrong: the server answers as it was
 * built, so it is logged as a refusal, and the message names the missing tool for the client.
 */
export class ConverterUnavailableError extends ApiError {
  readonly code = 'converter_unavailable';
  readonly status = 501;

  constructor(message: string) {
    super(message, { refusal: true });
  }
}

/**
 * The server is shutting down: the request came in while it drained, or could not
 * finish within the grace period. A restarted or sibling server will take it, hence the short hint.
 */
export class ServiceUnavailableError extends ApiError {
  readonly code = 'service_unavailable';
  readonly status = 503;
  override readonly retryAfterSeconds = 5;
}

/**
 * A synchronous call the server will not run now (openapi.yaml, "Admission order and back-pressure"):
 * it would wait too long for a slot, or its user has as many calls in progress as the plan allows. The
 * hint says when the same call is worth sending again (1 second unless the queue says longer).
 */
export class ServerBusyError extends ApiError {
  readonly code = 'server_busy';
  readonly status = 503;
  override readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds = 1) {
    super(message, { refusal: true });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The data folder is out of space or quota (ENOSPC, EDQUOT, SQLITE_FULL): never
 * the client's fault. Outputs expire after 15 minutes and the sweeper frees them each minute, so a
 * minute is the soonest a retry can find room that nobody else freed.
 */
export class InsufficientStorageError extends ApiError {
  readonly code = 'insufficient_storage';
  readonly status = 507;
  override readonly retryAfterSeconds = 60;
}

/**
 * The first request with this Idempotency-Key is still running past the duplicate's wait (openapi.yaml,
 * "Idempotency"). The same request with the same key is worth sending again in a moment:
 * the hint goes in the envelope, since Retry-After is the 429's alone.
 */
export class IdempotencyInProgressError extends ApiError {
  readonly code = 'idempotency_in_progress';
  readonly status = 409;
  override readonly retryAfterSeconds = 1;
}

/** The Idempotency-Key was used for a different request (openapi.yaml, "Idempotency"). */
export class IdempotencyKeyReusedError extends ApiError {
  readonly code = 'idempotency_key_reused';
  readonly status = 422;
}

/** A failed job's stored error, answered again to a repeated call (openapi.yaml, "Idempotency"). */
export class ReplayedError extends ApiError {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
