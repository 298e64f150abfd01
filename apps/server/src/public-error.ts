// What a client is told about an error (v1 specification, Errors): the one rule for the HTTP error
// envelope (http/middleware/error-envelope.ts) and for a failed job's `error` (jobs/job-runs.ts).
// Known errors show their own code and message, except 500s; anything else is a bug, shown as a
// generic 500 while its cause goes to the log (Koa's `ctx.onerror` makes the same split).
import { ApiError } from './errors.js';
import { insufficientStorage, saysOutOfSpace } from './storage/index.js';

const GENERIC_500 = 'The server hit an unexpected error; it is safe to retry with backoff.';

export interface PublicError {
  /** The ApiError behind it; undefined for a bug. */
  known: ApiError | undefined;
  status: number;
  body: { code: ApiError['code']; message: string; retry_after_seconds?: number };
}

export function publicError(error: unknown): PublicError {
  // A full disk or database is never the client's fault, whatever was thrown on the way.
  const known = saysOutOfSpace(error)
    ? insufficientStorage(error)
    : error instanceof ApiError
      ? error
      : undefined;
  return {
    known,
    status: known?.status ?? 500,
    body: {
      code: known?.code ?? 'internal_error',
      message: known?.status === 500 ? GENERIC_500 : (known?.message ?? GENERIC_500),
      ...(known?.retryAfterSeconds === undefined ? {} : { retry_after_seconds: known.retryAfterSeconds }),
    },
  };
}
