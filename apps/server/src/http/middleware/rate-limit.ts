// Per-user hourly limits (v1 specification, Limits; issue #2). Runs after auth and before the body is
// read, so a refused request costs no upload. Every authenticated /api/v1 response, errors included,
// carries X-RateLimit-Limit/-Remaining/-Reset and the IETF draft RateLimit-Policy/RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers); Enterprise shows as documented in openapi.yaml's
// info.description: `unlimited`, reset = now, no IETF headers.
import type { Middleware } from 'koa';
import { type Accounts, planLimits, planTitle, type RateDecision, type Usage } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import { type ApiError, RateLimitedError } from '../../errors.js';
import { admissionRefusals, rateLimitDecision } from '../../metrics.js';
import type { AppContext, AppState } from '../state.js';

function headersFor(decision: RateDecision): Record<string, string> {
  if (decision.limit === null || decision.remaining === null) {
    return {
      'X-RateLimit-Limit': 'unlimited',
      'X-RateLimit-Remaining': 'unlimited',
      'X-RateLimit-Reset': String(decision.resetAt),
    };
  }
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
    'RateLimit-Policy': `"hourly";q=${decision.limit};w=3600`,
    RateLimit: `"hourly";r=${decision.remaining};t=${decision.resetIn}`,
  };
}

/** The same headers for a window looked at, not spent (GET /api/v1/account, issue #12). */
export function usageHeaders(usage: Usage, now: number): Record<string, string> {
  const resetAtMs = usage.nextSlotAt ?? now;
  return headersFor({
    allowed: true,
    limit: usage.limit,
    remaining: usage.remaining,
    resetAt: Math.ceil(resetAtMs / 1000),
    resetIn: Math.ceil((resetAtMs - now) / 1000),
  });
}

export function rateLimit(accounts: Accounts, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('rateLimit needs the auth middleware in front of it');
    const { requestsPerHour } = planLimits(principal.plan, uploadLimits);
    // Timed here, where the decision is made, so the figure is the store's and this process's, not a
    // client's (issue #15's bench reads it from /metrics). A store that failed made no decision.
    const decided = rateLimitDecision.startTimer();
    const decision = await accounts.rateLimiter.consume(principal.userId, requestsPerHour);
    decided();
    ctx.set(headersFor(decision));
    if (!decision.allowed) {
      const retryAfter = decision.retryAfter ?? 1;
      admissionRefusals.inc({ code: 'rate_limited' });
      throw new RateLimitedError(
        `Rate limit exceeded: the ${planTitle(principal.plan)} plan allows ${requestsPerHour} requests per hour. ` +
          `Try again in ${retryAfter} seconds.`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    if (decision.event !== undefined) ctx.state.countedAs = decision.event;
    await next();
  };
}

/**
 * Refuses with `refusal`, a check that comes after the hourly limit in the admission order
 * (openapi.yaml, "Admission order and back-pressure") and counts nothing: the window is looked at, not
 * spent, and answered as it stands. A user whose hour is spent is told that first, by the limit's own
 * 429, which counts nothing either.
 */
export async function refuseAfterHourlyLimit(
  ctx: AppContext,
  accounts: Accounts,
  uploadLimits: UploadLimits,
  refusal: ApiError,
): Promise<never> {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('the admission checks need the auth middleware in front of them');
  const { requestsPerHour } = planLimits(principal.plan, uploadLimits);
  const usage = await accounts.rateLimiter.usage(principal.userId, requestsPerHour);
  // Throws its 429; should a slot of the window have freed meanwhile, it counts this one and we refuse anyway.
  if (usage.remaining === 0) await rateLimit(accounts, uploadLimits)(ctx, async () => {});
  ctx.set(usageHeaders(usage, Date.now()));
  admissionRefusals.inc({ code: refusal.code });
  throw refusal;
}
