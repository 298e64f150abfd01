// The rate-limit headers of every authenticated answer (v1 specification, Limits):
// X-RateLimit-Limit/-Remaining/-Reset and the IETF draft RateLimit-Policy/RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers). Enterprise shows as documented in openapi.yaml's
// info.description: `unlimited`, reset = now, no IETF headers.
import type { Middleware } from 'koa';
import { planLimits, type RateDecision, type RateLimiter } from '../accounts/index.js';
import type { UploadLimits } from '../config.js';
import { principalOf } from './routes/principal.js';
import type { AppState } from './state.js';

export function rateLimitHeaders(window: RateDecision): Record<string, string> {
  if (window.limit === null || window.remaining === null) {
    return {
      'X-RateLimit-Limit': 'unlimited',
      'X-RateLimit-Remaining': 'unlimited',
      'X-RateLimit-Reset': String(window.resetAt),
    };
  }
  return {
    'X-RateLimit-Limit': String(window.limit),
    'X-RateLimit-Remaining': String(window.remaining),
    'X-RateLimit-Reset': String(window.resetAt),
    'RateLimit-Policy': `"hourly";q=${window.limit};w=3600`,
    RateLimit: `"hourly";r=${window.remaining};t=${window.resetIn}`,
  };
}

/**
 * For the authenticated calls that are not counted (reading languages and jobs): the caller's window as
 * it stands, spending nothing, so that every answer to a known user says what is left. When the window
 * cannot be read (the shared rate store away), the answer goes out without it rather than not at all:
 * these calls do not need the limit.
 */
export function windowHeaders(rateLimiter: RateLimiter, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = principalOf(ctx);
    const { requestsPerHour } = planLimits(principal.plan, uploadLimits);
    const window = await rateLimiter.look(principal.userId, requestsPerHour).catch((error: unknown) => {
      ctx.state.log.debug('rate-limit window unread', { error });
      return undefined;
    });
    if (window !== undefined) ctx.set(rateLimitHeaders(window));
    await next();
  };
}
