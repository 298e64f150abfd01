// Plan and usage: the facts GET /api/v1/account gives, with the last hour per minute.
import type { Middleware } from 'koa';
import { planLimits } from '../../../accounts/index.js';
import type { AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { UsagePage } from '../views/usage.js';

const MINUTE = 60_000;

export function usagePage(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const { user } = viewer;
    const { requestsPerHour } = planLimits(user.plan, deps.config.uploadLimits);
    const usage = await deps.accounts.rateLimiter.usage(user.id, requestsPerHour);
    const counts = await deps.accounts.rateLimiter.histogram(user.id, MINUTE);
    sendPage(
      ctx,
      <UsagePage viewer={viewer} plan={user.plan} usage={usage} counts={counts} now={Date.now()} />,
    );
  };
}
