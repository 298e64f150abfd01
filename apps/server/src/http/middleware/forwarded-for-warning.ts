// Warns the operator, once per process, when a request carries X-Forwarded-For while PDN_TRUST_PROXY
// is 0. The header is then rightly ignored (anyone can send it), but its presence usually means a
// reverse proxy in front: every client would then reach the server from the proxy's one address, and
// share one sign-in throttle and one share of the password-hashing places, so a single client could
// lock everyone out of signing in. Every request is looked at, API calls as much as account pages: a
// proxy's first traffic is mostly API calls, and the warning should come before the first sign-in
// is throttled, not with it.
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export function forwardedForWarning(trustProxy: number): Middleware<AppState> {
  let warned = trustProxy > 0;
  return (ctx, next) => {
    if (!warned && ctx.get('x-forwarded-for') !== '') {
      warned = true;
      ctx.state.log.warn(
        'requests carry X-Forwarded-For but PDN_TRUST_PROXY is 0: the header is ignored, so behind a proxy every client shares its address for sign-in throttling and password hashing; set PDN_TRUST_PROXY to the number of proxies in front',
        { address: ctx.ip },
      );
    }
    return next();
  };
}
