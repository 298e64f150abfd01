// The webhooks page: the viewer's webhook secret (made on first use) and its rotation, and their
// latest deliveries with every attempt, each delivered or failed one with a button to send it again.
import type { Middleware } from 'koa';
import { NotFoundError } from '../../../errors.js';
import type { AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { seeOther, sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { WebhooksPage } from '../views/webhooks.js';

export function webhooksPage(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const secret = await deps.accounts.webhookSecrets.current(viewer.userId);
    const deliveries = await deps.webhooks.recent(viewer.userId);
    const notice =
      ctx.query.rotated !== undefined ? 'rotated' : ctx.query.sent !== undefined ? 'sent' : undefined;
    sendPage(
      ctx,
      <WebhooksPage
        viewer={viewer}
        secret={secret}
        deliveries={deliveries}
        now={Date.now()}
        notice={notice}
      />,
    );
  };
}

export function sendDeliveryAgain(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const jobId = String(ctx.params?.job ?? '');
    if (!(await deps.webhooks.sendAgain(jobId, viewerOf(ctx).userId)))
      throw new NotFoundError('There is no delivered or failed event of that job among yours.');
    seeOther(ctx, '/account/webhooks?sent');
  };
}

export function rotateWebhookSecret(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    await deps.accounts.webhookSecrets.rotate(viewerOf(ctx).userId);
    seeOther(ctx, '/account/webhooks?rotated');
  };
}
