// The server's error vocabulary: one class per wire code of the OpenAPI `ErrorCode` enum, except
// `request_timeout`, which only http/client-error.ts sends, for requests Node refused before the app.
// Engines, accounts, storage and routes throw these; the error middleware (src/http/middleware/
// error-envelope.ts) is the only place that turns them into the spec's JSON envelope. Messages of
// these errors are shown to clients; anything else that is thrown becomes a generic 500.
import type { ErrorCode } from '@pdn/api-types';

export abstract class ApiError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  /** Extra response headers this error requires (e.g. Retry-After on 429). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.headers = options.headers ?? {};
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

export class PayloadTooLargeError extends ApiError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

export class RateLimitedError extends ApiError {
  readonly code = 'rate_limited';
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
