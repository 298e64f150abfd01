// The only place error envelopes are built (v1 specification, Errors): `{ error: { code, message },
// meta: { request_id } }`. ApiErrors carry their own status, code, client-facing message and headers;
// anything else is a bug: a 500 with a generic message, the cause going to the log only (Koa's
// `ctx.onerror` does the same split between exposed 4xx and hidden 5xx). When the client is already
// gone nobody reads the answer, so that is logged as an abort, not as a bug; a refusal by design
// (503 server_busy) is no bug either, and goes to the refusal log, which sums up a flood of them.
import type { ErrorResponse } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import { publicError } from '../../public-error.js';
import { clientGone } from '../client-gone.js';
import { RefusalLog } from '../refusal-log.js';
import type { AppState } from '../state.js';

/** `log` takes the refusals summed up; each request's own lines go to its child (`ctx.state.log`). */
export function errorEnvelope(log: Logger): Middleware<AppState> {
  const refusals = new RefusalLog(log);
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { known, status, body: answer } = publicError(error);
      if (clientGone(ctx)) {
        ctx.state.log.info('client went away before the answer', { reason: (error as Error).message });
      } else if (known?.refusal) {
        refusals.note(known.code, { request_id: ctx.state.requestId, path: ctx.path, reason: known.message });
      } else if (!known || known.status >= 500) {
        ctx.state.log.error('request failed', { error, cause: known?.cause });
      }
      const body: ErrorResponse = { error: answer, meta: { request_id: ctx.state.requestId } };
      // Headers already set for this request (X-Request-Id, rate limits) stay; a half-prepared download's don't.
      ctx.remove('Content-Disposition');
      ctx.remove('Cache-Control');
      ctx.remove('X-Content-Type-Options');
      ctx.status = status;
      ctx.set(known?.headers ?? {});
      ctx.body = body;
    }
  };
}
