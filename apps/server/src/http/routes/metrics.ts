// GET /metrics (openapi.yaml operation `metrics`): the registry in Prometheus text format.
// Outside /api/v1, so never counted against a quota and without rate-limit headers. With
// PDN_METRICS_TOKEN set, only a scraper presenting it as a bearer token may read it.
import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthorizedError } from '../../errors.js';
import type { JobStore } from '../../jobs/job-store.js';
import { dataFolderFree, jobsQueued, registry } from '../../metrics.js';
import { freeBytes } from '../../storage/disk-space.js';
import type { AppState } from '../state.js';

function presents(authorization: string, token: string): boolean {
  const given = Buffer.from(authorization);
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export interface MetricsDeps {
  dataDir: string;
  /** PDN_METRICS_TOKEN, when set. */
  token: string | undefined;
  jobs: Pick<JobStore, 'unfinishedCounts'>;
}

export function metricsRoute({ dataDir, token, jobs }: MetricsDeps): Middleware<AppState> {
  return async (ctx) => {
    if (token !== undefined && !presents(ctx.get('Authorization'), token)) {
      throw new UnauthorizedError('Send the metrics token as `Authorization: Bearer <PDN_METRICS_TOKEN>`.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    // What the process keeps no count of itself is read now: the disk, and the shared queue, whose
    // series are left out while its store cannot answer (the scrape must work most then).
    dataFolderFree.set(await freeBytes(dataDir));
    const unfinished = await jobs.unfinishedCounts().catch(() => []);
    jobsQueued.reset();
    for (const { operation, mode, status, count } of unfinished)
      if (status === 'queued') jobsQueued.inc({ operation, mode }, count);
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  };
}
