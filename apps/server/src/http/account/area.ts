// The account area (STYLE.md 23): server-rendered pages under /account, apart from the API.
// Everything under /account is answered here, errors included, as HTML: the JSON envelope, 404 and
// 405 handling stay the API's. Each request gets the page headers and its viewer (session or
// signed-out visitor); every POST goes through formGuard (Origin and CSRF) before its handler.
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { unmatched } from '../middleware/unmatched.js';
import type { AppState } from '../state.js';
import type { AreaDeps } from './deps.js';
import { formGuard } from './form-guard.js';
import { renderPageError } from './page-errors.js';
import { pageHeaders } from './page-headers.js';
import { seeOther } from './render.js';
import { ACCOUNT_ASSETS, type AccountAsset, assetRoute } from './routes/assets.js';
import { deviceCode, deviceDecide, devicePage, deviceToken } from './routes/device.js';
import {
  createKey,
  keysPage,
  renameForm,
  renameSubmit,
  revokeConfirm,
  revokeSubmit,
  rollConfirm,
  rollSubmit,
} from './routes/keys.js';
import { signInForm, signInSubmit } from './routes/sign-in.js';
import { signOutSubmit } from './routes/sign-out.js';
import { signUpForm, signUpSubmit } from './routes/sign-up.js';
import { usagePage } from './routes/usage.js';
import { rotateWebhookSecret, sendDeliveryAgain, webhooksPage } from './routes/webhooks.js';
import { welcomeForm, welcomeSubmit } from './routes/welcome.js';
import { loadViewer } from './viewer.js';

/** A signed-out visitor is sent to sign in, and from a page worth coming back to, back there after. */
const signedIn: Middleware<AppState> = (ctx, next) => {
  if (ctx.state.page?.viewer) return next();
  const back =
    ctx.method === 'GET' && ctx.path === '/account/device' ? `?next=${encodeURIComponent(ctx.url)}` : '';
  return seeOther(ctx, `/account/sign-in${back}`);
};

function accountRouter(deps: AreaDeps): Router<AppState> {
  const router = new Router<AppState>({ sensitive: true, strict: true });
  const guard = formGuard();
  router.get('/account', (ctx) =>
    seeOther(ctx, ctx.state.page?.viewer ? '/account/keys' : '/account/sign-in'),
  );
  router.get('/account/sign-in', signInForm(deps));
  router.post('/account/sign-in', guard, signInSubmit(deps));
  router.get('/account/sign-up', signUpForm(deps));
  router.post('/account/sign-up', guard, signUpSubmit(deps));
  router.get('/account/welcome', welcomeForm(deps));
  router.post('/account/welcome', guard, welcomeSubmit(deps));
  router.post('/account/sign-out', guard, signOutSubmit(deps));
  router.get('/account/keys', signedIn, keysPage(deps));
  router.post('/account/keys', signedIn, guard, createKey(deps));
  router.get('/account/keys/:id/rename', signedIn, renameForm(deps));
  router.post('/account/keys/:id/rename', signedIn, guard, renameSubmit(deps));
  router.get('/account/keys/:id/roll', signedIn, rollConfirm(deps));
  router.post('/account/keys/:id/roll', signedIn, guard, rollSubmit(deps));
  router.get('/account/keys/:id/revoke', signedIn, revokeConfirm(deps));
  router.post('/account/keys/:id/revoke', signedIn, guard, revokeSubmit(deps));
  router.get('/account/usage', signedIn, usagePage(deps));
  // pdn login: the CLI's two JSON endpoints (no session, no form guard), then the owner's pages.
  router.post('/account/device/code', deviceCode(deps));
  router.post('/account/device/token', deviceToken(deps));
  router.get('/account/device', signedIn, devicePage(deps));
  router.post('/account/device', signedIn, guard, deviceDecide(deps));
  router.get('/account/webhooks', signedIn, webhooksPage(deps));
  router.post('/account/webhooks/rotate', signedIn, guard, rotateWebhookSecret(deps));
  router.post('/account/webhooks/deliveries/:job/send-again', signedIn, guard, sendDeliveryAgain(deps));
  return router;
}

/**
 * The stylesheet and script, answered before any session or CSRF cookie is looked at: a cacheable
 * answer must never carry a Set-Cookie a shared cache could hand to someone else.
 */
function assetRouter(): Router<AppState> {
  const router = new Router<AppState>({ sensitive: true, strict: true });
  for (const asset of Object.keys(ACCOUNT_ASSETS) as AccountAsset[])
    router.get(`/account/${asset}`, assetRoute(asset));
  return router;
}

export function accountArea(deps: AreaDeps): Middleware<AppState> {
  // The router adds its params to the context itself; to the area it is a middleware like any other.
  const routes = accountRouter(deps).routes() as Middleware<AppState>;
  const assets = assetRouter().routes() as Middleware<AppState>;
  const notFound = unmatched(
    () => 'There is no page at this address. It may have moved, or the link is mistyped.',
  );
  return async (ctx, next) => {
    if (ctx.path !== '/account' && !ctx.path.startsWith('/account/')) return next();
    try {
      ctx.set(pageHeaders());
      await assets(ctx, async () => {
        ctx.state.page = await loadViewer(ctx, deps.accounts);
        await routes(ctx, async () => {
          await notFound(ctx, async () => {});
        });
      });
    } catch (error) {
      renderPageError(ctx, error);
    }
  };
}
