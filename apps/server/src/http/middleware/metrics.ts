// Counts every answered request for GET /metrics (STYLE.md point 22: metrics in a
// middleware of their own): by the route's pattern, so `/api/v1/jobs/:id` is one series whatever the
// id, and `unmatched` for paths no route knows.
import type { Middleware } from 'koa';
import { httpBytes, httpDuration, httpRequests } from '../../metrics.js';
import { clientGone } from '../client-gone.js';
import type { AppState } from '../state.js';
import { wireBytes } from '../wire-bytes.js';

export function metrics(): Middleware<AppState> {
  return async (ctx, next) => {
    const stopTimer = httpDuration.startTimer();
    try {
      await next();
    } finally {
      const route = String(ctx._matchedRoute ?? 'unmatched');
      stopTimer({ route });
      const status = clientGone(ctx) ? 'client-closed' : String(ctx.status);
      httpRequests.inc({ route, method: ctx.method, status });
      void wireBytes(ctx).then((bytes) => {
        httpBytes.inc({ route, direction: 'in' }, bytes.read);
        httpBytes.inc({ route, direction: 'out' }, bytes.written);
      });
    }
  };
}
