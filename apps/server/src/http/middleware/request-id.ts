// Gives every request an id (issue #2: `X-Request-Id` header and `meta.request_id`, same value), binds
// it to the request's log, and logs one line per finished request: who (the user id, never the key),
// which route, its status, bytes in and out, duration and job (issue #18). A caller's own X-Request-Id is
// kept when it is sane, so ids can be followed across services; anything else is replaced.
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import { clientGone } from '../client-gone.js';
import type { AppState } from '../state.js';

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
      ctx.state.log.info('request', {
        method: ctx.method,
        path: ctx.path,
        // The route's pattern (`/api/v1/jobs/:id`) groups requests where the path would not.
        route: ctx._matchedRoute,
        user_id: ctx.state.principal?.userId,
        job_id: ctx.state.jobId,
        // Nobody received the status set for a client that hung up; say what happened instead.
        status: clientGone(ctx) ? 'client-closed' : ctx.status,
        // Declared lengths: counting the streams themselves would cost every request a pass over them.
        bytes_in: ctx.request.length,
        bytes_out: ctx.response.length,
        ms: Math.round(performance.now() - started),
      });
    }
  };
}
