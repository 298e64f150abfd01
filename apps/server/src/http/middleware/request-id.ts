// Gives every request an id (`X-Request-Id` header and `meta.request_id`, same value), binds it to the
// request's log, and logs one line per finished request: who (the user id, never the key), which route,
// its status, bytes in and out (on the wire: http/wire-bytes.ts), duration, and its job (whose own
// `job ended` line, carrying this request's id, says where the job's time went). A
// caller's own X-Request-Id is kept when it is sane, so ids can be followed across services; anything
// else is replaced.
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import { clientGone } from '../client-gone.js';
import type { AppState } from '../state.js';
import { wireBytes } from '../wire-bytes.js';

const SANE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = SANE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ request_id: id });
    ctx.set('X-Request-Id', id);
    const started = performance.now();
    try {
      await next();
    } finally {
      const fields = {
        method: ctx.method,
        path: ctx.path,
        // The route's pattern (`/api/v1/jobs/:id`) groups requests where the path would not.
        route: ctx._matchedRoute,
        user_id: ctx.state.principal?.userId,
        job_id: ctx.state.jobId,
        // Nobody received the status set for a client that hung up; say what happened instead.
        status: clientGone(ctx) ? 'client-closed' : ctx.status,
        // Until the answer was ready, as GET /metrics times it; sending it is the client's pace.
        ms: Math.round(performance.now() - started),
      };
      // Written once the answer has gone out, with the bytes really carried (chunked bodies too).
      void wireBytes(ctx).then((bytes) => {
        ctx.state.log.info('request', { ...fields, bytes_in: bytes.read, bytes_out: bytes.written });
      });
    }
  };
}
