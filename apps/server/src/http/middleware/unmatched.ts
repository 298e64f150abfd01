// Requests no route answers: a known path with the wrong method is `405
// method_not_allowed` with an `Allow` header (RFC 9110 section 15.5.6); anything else is `404
// not_found`. Runs after the router, which passes on only what it did not handle.
import type { Middleware } from 'koa';
import { MethodNotAllowedError, NotFoundError } from '../../errors.js';
import type { AppContext, AppState } from '../state.js';

/** `notFound` words the 404 for its audience: the API's points at /docs, the account pages' do not. */
export function unmatched(
  notFound: (ctx: AppContext) => string = (ctx) =>
    `There is no ${ctx.method} ${ctx.path}; see /docs for the operations this server offers.`,
): Middleware<AppState> {
  return (ctx) => {
    // @koa/router leaves the layers whose path matched (whatever their method) in ctx.matched.
    const layers = (ctx as { matched?: { methods: string[] }[] }).matched ?? [];
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))];
    if (allowed.length > 0) {
      throw new MethodNotAllowedError(
        `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}.`,
        {
          headers: { Allow: allowed.join(', ') },
        },
      );
    }
    throw new NotFoundError(notFound(ctx));
  };
}
