// GET /api/v1/account (openapi.yaml operation `getAccount`): the key owner's plan and usage, and
// DELETE /api/v1/account/key (`revokeCurrentKey`, `pdn logout`): the call's own key revoked. Behind
// auth but not the rate limit, so neither ever spends a request.
import type { AccountResult, RevokedKey } from '@pdn/api-types';
import type { Middleware } from 'koa';
import { type Accounts, lookedAt, planLimits } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

export function accountRoute(accounts: Accounts, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('accountRoute needs the auth middleware in front of it');
    const { requestsPerHour } = planLimits(principal.plan, uploadLimits);
    const usage = await accounts.rateLimiter.usage(principal.userId, requestsPerHour);
    ctx.set(rateLimitHeaders(lookedAt(usage, Date.now())));
    sendData<AccountResult>(ctx, {
      plan: principal.plan,
      requests_per_hour: usage.limit,
      used: usage.used,
      remaining: usage.remaining,
      next_slot_at: usage.nextSlotAt === null ? null : new Date(usage.nextSlotAt).toISOString(),
      key: { id: principal.keyId, kind: principal.keyKind },
    });
  };
}

export function revokeCurrentKeyRoute(accounts: Accounts): Middleware<AppState> {
  return async (ctx) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('revokeCurrentKeyRoute needs the auth middleware in front of it');
    // Revoked meanwhile by another request of the same key: it is revoked all the same.
    await accounts.keys.revoke(principal.keyId, principal.userId);
    sendData<RevokedKey>(ctx, { id: principal.keyId, kind: principal.keyKind });
  };
}
