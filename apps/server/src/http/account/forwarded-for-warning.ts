// Warns the operator, once per process, when a request of the account area carries X-Forwarded-For
// while PDN_TRUST_PROXY is 0. The header is then rightly ignored (anyone can send it), but its
// presence usually means a reverse proxy in front: every client would then reach the server from the
// proxy's one address, and share one sign-in throttle and one share of the password-hashing places,
// so a single client could lock everyone out of signing in.
import type { AppContext } from '../state.js';

/** A check to run on every request of the area; it logs at most once. */
export function forwardedForWarning(trustProxy: number): (ctx: AppContext) => void {
  let warned = trustProxy > 0;
  return (ctx) => {
    if (!warned && ctx.get('x-forwarded-for') !== '') {
      warned = true;
      ctx.state.log.warn(
        'requests carry X-Forwarded-For but PDN_TRUST_PROXY is 0: the header is ignored, so behind a proxy every client shares its address for sign-in throttling and password hashing; set PDN_TRUST_PROXY to the number of proxies in front',
        { address: ctx.ip },
      );
    }
  };
}
