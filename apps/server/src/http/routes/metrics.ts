// GET /metrics (openapi.yaml operation `metrics`; issue #18): the registry in Prometheus text format.
// Outside /api/v1, so never counted against a quota and without rate-limit headers. With
// PDN_METRICS_TOKEN set, only a scraper presenting it as a bearer token may read it.
import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthorizedError } from '../../errors.js';
import { dataFolderFree, registry } from '../../metrics.js';
import { freeBytes } from '../../storage/disk-space.js';
import type { AppState } from '../state.js';

function presents(authorization: string, token: string): boolean {
  const given = Buffer.from(authorization);
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export function metricsRoute(dataDir: string, token: string | undefined): Middleware<AppState> {
  return async (ctx) => {
    if (token !== undefined && !presents(ctx.get('Authorization'), token)) {
      throw new UnauthorizedError('Send the metrics token as `Authorization: Bearer <PDN_METRICS_TOKEN>`.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    dataFolderFree.set(await freeBytes(dataDir));
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  };
}
