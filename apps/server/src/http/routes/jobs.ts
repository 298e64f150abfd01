// GET /api/v1/jobs, GET and DELETE /api/v1/jobs/{id} (openapi.yaml operations `listJobs`, `getJob`,
// `cancelJob`). A job is its owner's alone: anyone else's is answered as missing (404),
// so ids cannot be probed. None of these is counted against the hourly limit (app.ts `uncounted`).
import type { JobList, JobStatus } from '@pdn/api-types';
import type { Middleware } from 'koa';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { JobRecord, JobStore, Jobs } from '../../jobs/index.js';
import { preferredWait } from '../prefer.js';
import { sendData } from '../respond.js';
import type { AppContext, AppState } from '../state.js';
import { principalOf } from './principal.js';

const STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
/** openapi.yaml `listJobs` `limit`. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_CURSOR_LENGTH = 200;
/** openapi.yaml `getJob` `Prefer: wait`: well inside a shutdown's grace period and proxies' timeouts. */
const MAX_WAIT_SECONDS = 10;

async function ownJob(ctx: AppContext, store: JobStore): Promise<JobRecord> {
  const id = String(ctx.params.id);
  const job = await store.get(id);
  if (!job || job.userId !== principalOf(ctx).userId) {
    throw new NotFoundError(`There is no job ${id} among yours; jobs are kept 24 hours after they finish.`);
  }
  return job;
}

/**
 * The query parameter `name`, sent at most once; sent empty, as a form's blank field is, it is not
 * sent (openapi.yaml, "Requests").
 */
function queryValue(ctx: AppContext, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new InvalidInputError(`Send the query parameter \`${name}\` at most once.`);
  return value === '' ? undefined : value;
}

function parseStatus(raw: string | undefined): JobStatus | undefined {
  if (raw === undefined) return undefined;
  const status = STATUSES.find((candidate) => candidate === raw);
  if (!status) throw new InvalidInputError(`\`status\` must be one of ${STATUSES.join(', ')}; got "${raw}".`);
  return status;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = /^[1-9][0-9]{0,2}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit <= MAX_LIMIT))
    throw new InvalidInputError(`\`limit\` must be a whole number from 1 to ${MAX_LIMIT}; got "${raw}".`);
  return limit;
}

export function listJobsRoute(jobs: Jobs): Middleware<AppState> {
  return async (ctx) => {
    const cursor = queryValue(ctx, 'cursor');
    const query = {
      status: parseStatus(queryValue(ctx, 'status')),
      limit: parseLimit(queryValue(ctx, 'limit')),
      cursor,
    };
    const page =
      cursor !== undefined && cursor.length > MAX_CURSOR_LENGTH
        ? undefined
        : await jobs.store.list(principalOf(ctx).userId, query);
    if (!page)
      throw new InvalidInputError(
        '`cursor` is not one this server gave; pass `data.next_cursor` of the previous page.',
      );
    sendData<JobList>(ctx, { jobs: page.jobs.map((job) => jobs.views.view(job)), next_cursor: page.next });
  };
}

export function getJobRoute(jobs: Jobs): Middleware<AppState> {
  return async (ctx) => {
    const wait = preferredWait(ctx.get('Prefer'), MAX_WAIT_SECONDS);
    let job = await ownJob(ctx, jobs.store);
    // Long polling (openapi.yaml `getJob`, `Prefer: wait`): the answer is held until the job ends.
    if (wait && job.finishedAt === null) {
      const ended = await jobs.waiters.ended(job.id, { timeoutMs: wait * 1000 });
      job = ended?.record ?? (await ownJob(ctx, jobs.store));
    }
    sendData(ctx, jobs.views.view(job));
  };
}

export function cancelJobRoute(jobs: Jobs): Middleware<AppState> {
  return async (ctx) => {
    const job = await ownJob(ctx, jobs.store);
    sendData(ctx, jobs.views.view((await jobs.queue.cancel(job.id)) ?? job));
  };
}
