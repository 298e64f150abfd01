// The X-RateLimit-* headers (openapi.yaml "Rate limits"): counts, or the literal `unlimited` on
// Enterprise, and the reset as Unix seconds.
import type { RateLimitInfo } from '../results.js';

const digits = /^\d+$/;

/** `undefined` when a header is missing or malformed (e.g. on 401, which carries none). */
export function parseRateLimit(headers: Headers): RateLimitInfo | undefined {
  const limit = parseCount(headers.get('x-ratelimit-limit'));
  const remaining = parseCount(headers.get('x-ratelimit-remaining'));
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (limit === undefined || remaining === undefined || reset === undefined || !digits.test(reset)) {
    return undefined;
  }
  return { limit, remaining, reset: new Date(Number(reset) * 1000) };
}

function parseCount(value: string | null): number | null | undefined {
  const text = value?.trim();
  if (text === 'unlimited') return null;
  return text !== undefined && digits.test(text) ? Number(text) : undefined;
}
