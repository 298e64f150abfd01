// Jobs through the real API: submit with `Prefer: respond-async`, read, and wait for a
// job to reach a status by polling at the server's suggested interval. Every call goes through the
// contract check of ctx.call().

import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobResponse } from '@pdn/api-types';
import type { ServerContext } from './use-server.js';

/** Whatever calls one server's API: a ServerContext, or one of several servers of a test. */
export type Caller = Pick<ServerContext, 'call'>;

export const FINAL: readonly Job['status'][] = ['succeeded', 'failed', 'canceled'];

export async function submitJob(ctx: Caller, key: string, path: string, body: FormData): Promise<Job> {
  const res = await ctx.call<JobResponse>(path, { key, body, headers: { Prefer: 'respond-async' } });
  if (res.status !== 202) throw new Error(`${path} answered ${res.status}: ${res.bytes.toString('utf8')}`);
  return res.json.data;
}

export async function getJob(
  ctx: Caller,
  key: string,
  id: string,
  headers?: Record<string, string>,
): Promise<Job> {
  const res = await ctx.call<JobResponse>(`/api/v1/jobs/${id}`, { key, ...(headers ? { headers } : {}) });
  if (res.status !== 200) throw new Error(`GET job ${id} answered ${res.status}`);
  return res.json.data;
}

/** Polls until the job's status is one of `statuses` (a final one by default). */
export async function waitForJob(
  ctx: Caller,
  key: string,
  id: string,
  statuses: readonly Job['status'][] = FINAL,
): Promise<Job> {
  // Waiting for an end, the server holds each answer until then (Prefer: wait); for a start, poll.
  const headers = statuses.every((status) => FINAL.includes(status)) ? { Prefer: 'wait=10' } : undefined;
  for (;;) {
    const job = await getJob(ctx, key, id, headers);
    if (statuses.includes(job.status)) return job;
    if (FINAL.includes(job.status))
      throw new Error(`job ${id} ended ${job.status}, not ${statuses.join('/')}`);
    // Faster than the suggested interval: the tests wait on state, never on time.
    await sleep(Math.min(100, (job.poll_after_seconds ?? 1) * 1000));
  }
}
