// The one factory that turns an HTTP error answer into the typed error family (STYLE.md principle 3).
// The subclass follows the status; the code and message come from the error envelope when the body
// is one (openapi.yaml `ErrorResponse`), so a proxy's HTML 502 still becomes an InternalServerError.
import type { ErrorCode } from '../api-types/index.js';
import {
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  ConverterUnavailableError,
  ExpiredError,
  ForbiddenError,
  InsufficientStorageError,
  InternalServerError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerBusyError,
  ServiceUnavailableError,
  TooManyJobsError,
} from '../errors.js';
import { parseRateLimit } from './rate-limit.js';
import { parseRetryAfter } from './retry-after.js';

type Subclass = new (message: string, init?: ApiErrorInit) => ApiError;

const byStatus: Record<number, Subclass> = {
  400: InvalidInputError,
  401: AuthenticationError,
  403: ForbiddenError,
  404: NotFoundError,
  410: ExpiredError,
  413: PayloadTooLargeError,
};

/** `body` is the parsed JSON body, or `undefined` when it was not JSON. */
export function errorFromResponse(status: number, headers: Headers, body: unknown): ApiError {
  const envelope = asEnvelope(body);
  const message = envelope?.message ?? `HTTP ${status} with no error envelope`;
  const init: ApiErrorInit = {
    status,
    headers,
    requestId: envelope?.requestId ?? headers.get('x-request-id') ?? undefined,
  };
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
    const Limit = envelope?.code === 'too_many_jobs' ? TooManyJobsError : RateLimitError;
    return new Limit(message, {
      ...init,
      retryAfter: retryAfterMs === undefined ? envelope?.retryAfter : Math.ceil(retryAfterMs / 1000),
      rateLimit: parseRateLimit(headers),
    });
  }
  // The API's retry hint for these is in the envelope, not a header (openapi.yaml `Error`).
  if (status === 503) {
    const Unavailable = envelope?.code === 'server_busy' ? ServerBusyError : ServiceUnavailableError;
    return new Unavailable(message, { ...init, retryAfter: envelope?.retryAfter });
  }
  if (status === 507)
    return new InsufficientStorageError(message, { ...init, retryAfter: envelope?.retryAfter });
  // A 501 is ours only with our code: a proxy's "Not Implemented" is a server fault like its 502.
  if (status === 501 && envelope?.code === 'converter_unavailable')
    return new ConverterUnavailableError(message, init);
  if (status >= 500) return new InternalServerError(message, init);
  const Known = byStatus[status];
  if (Known) return new Known(message, init);
  // A status the contract gives no class (405 `method_not_allowed`, or something unforeseen).
  return new ApiError(envelope?.code ?? 'invalid_response', message, init);
}

/**
 * The status each wire code is sent with (openapi.yaml `ErrorCode`: one code, one status), so a job
 * that failed (`GET /api/v1/jobs/{id}`, `error`) rejects with the class, code and status the
 * synchronous call would have: a bad PDF is an InvalidInputError with status 400 either way.
 */
const statusOfCode: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  expired: 410,
  payload_too_large: 413,
  rate_limited: 429,
  too_many_jobs: 429,
  internal_error: 500,
  converter_unavailable: 501,
  service_unavailable: 503,
  server_busy: 503,
  insufficient_storage: 507,
};

/** A failed job's `error` object as the typed error; `requestId` is that of the answer that held it. */
export function errorFromJobError(
  error: { code: ErrorCode; message: string },
  requestId: string | undefined,
): ApiError {
  const body = { error, meta: { request_id: requestId } };
  return errorFromResponse(statusOfCode[error.code] ?? 500, new Headers(), body);
}

interface Envelope {
  code: ErrorCode | undefined;
  message: string | undefined;
  requestId: string | undefined;
  /** `error.retry_after_seconds`. */
  retryAfter: number | undefined;
}

function asEnvelope(body: unknown): Envelope | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, meta } = body as {
    error?: { code?: unknown; message?: unknown; retry_after_seconds?: unknown };
    meta?: { request_id?: unknown };
  };
  const hint = error?.retry_after_seconds;
  return {
    code: typeof error?.code === 'string' ? (error.code as ErrorCode) : undefined,
    message: typeof error?.message === 'string' ? error.message : undefined,
    requestId: typeof meta?.request_id === 'string' ? meta.request_id : undefined,
    retryAfter: typeof hint === 'number' && Number.isInteger(hint) && hint >= 0 ? hint : undefined,
  };
}
