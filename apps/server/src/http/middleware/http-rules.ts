// Rules of HTTP/1.1 that Node's server enforces itself with a bare status line, no envelope and no
// request id: a request without `Host` (400) and an `Expect` other than
// 100-continue (417). http-server.ts turns Node's own checks off and routes those requests here, so
// the error middleware answers them like every other error.
import type { Middleware } from 'koa';
import { ExpectationFailedError, InvalidInputError } from '../../errors.js';
import type { AppContext, AppState } from '../state.js';

/** Node's own test for a 100-continue expectation (lib/_http_server.js `continueExpression`). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** HTTP/1.1 or later: HTTP/1.0 knows neither rule (RFC 9110 section 10.1.1: 1.0 expectations are ignored). */
function isHttp11(ctx: AppContext): boolean {
  return ctx.req.httpVersionMajor > 1 || ctx.req.httpVersionMinor >= 1;
}

/** Whether the client holds its body back until told "100 Continue" (RFC 9110 section 10.1.1). */
export function expectsContinue(ctx: AppContext): boolean {
  return isHttp11(ctx) && CONTINUE.test(ctx.get('Expect'));
}

export function httpRules(): Middleware<AppState> {
  return (ctx, next) => {
    if (!isHttp11(ctx)) return next();
    // RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host; like Node,
    // the connection is closed after it.
    if (ctx.req.headers.host === undefined) {
      throw new InvalidInputError('An HTTP/1.1 request must carry a Host header (RFC 9112 section 3.2).', {
        headers: { Connection: 'close' },
      });
    }
    const expectation = ctx.get('Expect');
    if (expectation !== '' && !CONTINUE.test(expectation)) {
      throw new ExpectationFailedError(
        `This server meets no expectation but 100-continue; got "Expect: ${expectation}". Send the request without it.`,
      );
    }
    return next();
  };
}
