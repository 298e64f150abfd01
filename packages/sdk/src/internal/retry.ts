// Retry policy as small named functions (STYLE.md principle 6). The loop that applies them is in
// request.ts. Retried: 408, 429, 5xx and connection errors, and any answer the server marks
// `x-should-retry: true`; never one it marks `false` (openai-node's rule). A 507 (the server's disk is
// full) is not retried, as that seldom clears within a retry's wait, nor a 501 converter_unavailable
// (the server lacks the converter, and will on every try); a 409 `idempotency_in_progress` is, with
// the call's same key, since the first attempt's answer is then ready. The wait is what the server asks
// (`retry-after-ms`, then Retry-After, then a 503's or 429's hint in the envelope) up to a cap, failing
// at once beyond it; otherwise exponential backoff with jitter. A caller's abort, and a browser's CORS
// refusal (cors-refusal.ts), are never retried.
import {
  ApiError,
  ConnectionError,
  ConverterUnavailableError,
  CorsRefusalError,
  RateLimitError,
  ServiceUnavailableError,
} from '../errors.js';
import { parseRetryAfter, parseRetryAfterMs } from './retry-after.js';

const initialBackoffMs = 500;
const maxBackoffMs = 8_000;

/** Whether another attempt could succeed. Timeouts are connection errors (TimeoutError extends it). */
export function shouldRetry(error: unknown): boolean {
  if (error instanceof CorsRefusalError) return false;
  if (error instanceof ConnectionError) return true;
  if (!(error instanceof ApiError) || error.status === undefined) return false;
  // The server's own word wins over the status (x-should-retry, as openai-node's servers send it).
  const told = error.headers.get('x-should-retry');
  if (told === 'true') return true;
  if (told === 'false') return false;
  // 409 idempotency_in_progress: the same call's first attempt still runs; the retry gets its answer.
  if (error.status === 409) return error.code === 'idempotency_in_progress';
  // 501 converter_unavailable: this server has no such converter, and will not have one on a retry.
  if (error instanceof ConverterUnavailableError) return false;
  return error.status === 408 || error.status === 429 || (error.status >= 500 && error.status !== 507);
}

/**
 * What the server asked to wait, in milliseconds: `retry-after-ms` (finer than a whole second), else
 * the Retry-After header (429, or a proxy's 503), else the hint in the envelope (a 503's; a 429
 * `too_many_jobs` sent without the header). `undefined` when it asked nothing.
 */
function askedDelayMs(error: unknown): number | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const header =
    parseRetryAfterMs(error.headers.get('retry-after-ms')) ??
    parseRetryAfter(error.headers.get('retry-after'));
  if (header !== undefined) return header;
  const hinted = error instanceof ServiceUnavailableError || error instanceof RateLimitError;
  if (hinted && error.retryAfter !== undefined) return error.retryAfter * 1000;
  return undefined;
}

/**
 * Milliseconds before retry number `retry` (1 for the first): exponential, 0.5 s doubling up to 8 s,
 * shortened by up to a quarter at random so clients that failed together do not retry in lockstep.
 */
export function backoffDelay(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(initialBackoffMs * 2 ** (retry - 1), maxBackoffMs);
  return Math.round(ceiling * (1 - 0.25 * random()));
}

/**
 * The wait before retry number `retry`: what the server asked for when it did, else backoff.
 * `undefined` means "do not retry": the server asks for longer than `maxRetryAfterMs` (a Free
 * plan's 429 can ask for most of an hour, and a caller should learn that now, not in an hour).
 */
export function retryDelay(
  error: unknown,
  retry: number,
  maxRetryAfterMs: number,
  random?: () => number,
): number | undefined {
  const asked = askedDelayMs(error);
  if (asked === undefined) return backoffDelay(retry, random);
  return asked <= maxRetryAfterMs ? asked : undefined;
}
