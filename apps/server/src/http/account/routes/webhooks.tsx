// The webhooks page (issue #14): the viewer's webhook secret (made on first use) and its rotation.
import type { Middleware } from 'koa';
import type { AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { seeOther, sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { WebhooksPage } from '../views/webhooks.js';

export function webhooksPage(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const secret = await deps.accounts.webhookSecrets.current(viewer.userId);
    sendPage(ctx, <WebhooksPage viewer={viewer} secret={secret} rotated={ctx.query.rotated !== undefined} />);
  };
}

export function rotateWebhookSecret(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    await deps.accounts.webhookSecrets.rotate(viewerOf(ctx).userId);
    seeOther(ctx, '/account/webhooks?rotated');
  };
}
