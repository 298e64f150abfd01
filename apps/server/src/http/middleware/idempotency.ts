// Idempotency-Key on the four operations (issue #14; openapi.yaml, "Idempotency"; IETF
// draft-ietf-httpapi-idempotency-key-header). Runs after auth and before everything that counts or
// reads the body: a request whose key is free takes it and goes on as any other (`counted`, then
// `read`, then the route, which binds its job to the key in routes/submit.ts); a request whose key is
// held waits, bounded, for the holder's answer, then reads its own body only to compare the two and
// answers the first answer again. It never runs `counted`: a replay is not counted, nor capped.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ErrorCode } from '@pdn/api-types';
import type { Middleware } from 'koa';
import { type Accounts, planLimits } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import {
  ExpiredError,
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
  InvalidInputError,
  ReplayedError,
} from '../../errors.js';
import { fingerprint } from '../../idempotency/fingerprint.js';
import type { IdempotencyRecord } from '../../idempotency/idempotency-store.js';
import type { JobRecord } from '../../jobs/job-store.js';
import type { JobRunner } from '../../jobs/runner.js';
import { asksForJob } from '../prefer.js';
import { sendData } from '../respond.js';
import type { AppContext, AppState } from '../state.js';
import { usageHeaders } from './rate-limit.js';

/** How long a key is remembered (openapi.yaml, "Idempotency"). */
export const KEY_TTL_MS = 24 * 60 * 60_000;
/** The key's characters and length (openapi.yaml `IdempotencyKey`); a UUID fits. */
const KEY_FORMAT = /^[A-Za-z0-9._:~-]{1,255}$/;
/** How often a waiting duplicate looks at the record again (it may be held by another process). */
const POLL_MS = 50;
/**
 * A key taken by a request that never bound a job nor let go of it (its process died): free once
 * that request could no longer be running, past the server's 10 minutes per request (408).
 */
const ABANDONED_AFTER_MS = 11 * 60_000;
const FORGET_EVERY_MS = 60_000;

/** The status a failed job's stored error went out with (errors.ts). */
const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  payload_too_large: 413,
  service_unavailable: 503,
  insufficient_storage: 507,
};

export interface IdempotencyDeps {
  accounts: Accounts;
  jobs: JobRunner;
  uploadLimits: UploadLimits;
  /** How long a duplicate waits for the first request's answer before 409 (PDN_IDEMPOTENCY_WAIT_SECONDS). */
  waitMs: number;
}

type Chain = Middleware<AppState>[];

/** Runs `middlewares` in order, then `last`, as Koa would. */
function run(ctx: AppContext, middlewares: Chain, last: () => Promise<unknown>): Promise<unknown> {
  const [first, ...rest] = middlewares;
  return first ? Promise.resolve(first(ctx, () => run(ctx, rest, last))) : last();
}

export function idempotency(
  deps: IdempotencyDeps,
  steps: { counted: Chain; read: Middleware<AppState> },
): Middleware<AppState> {
  const { accounts, jobs } = deps;
  const store = accounts.idempotency;
  let forgotAt = 0;

  const usage = async (ctx: AppContext) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('idempotency needs the auth middleware in front of it');
    const limit = planLimits(principal.plan, deps.uploadLimits).requestsPerHour;
    ctx.set(usageHeaders(await accounts.rateLimiter.usage(principal.userId, limit), Date.now()));
  };

  const fingerprintOf = (ctx: AppContext) => {
    const upload = ctx.state.upload;
    if (!upload) throw new Error('idempotency needs the uploads middleware in `read`');
    return fingerprint({
      operation: ctx.path,
      async: asksForJob(ctx),
      fields: upload.fields,
      files: upload.files,
    });
  };

  /** The first request with the key: as any request, and the key let go if it ends up doing no work. */
  async function first(
    ctx: AppContext,
    userId: number,
    key: string,
    token: string,
    next: () => Promise<unknown>,
  ) {
    let bound: string | undefined;
    ctx.state.idempotency = {
      bind: async (jobId) => {
        await store.bind(userId, key, token, fingerprintOf(ctx), jobId);
        bound = jobId;
      },
    };
    try {
      await run(ctx, [...steps.counted, steps.read], next);
    } finally {
      const job = bound === undefined ? undefined : await accounts.jobs.get(bound).catch(() => undefined);
      if (!job || isCallGone(job))
        await store
          .release(userId, key, token)
          .catch((error: unknown) => ctx.state.log.warn('freeing an idempotency key failed', { error }));
    }
  }

  /** A duplicate: the first answer again, once there is one, for the same request only. */
  async function replay(ctx: AppContext, record: IdempotencyRecord, job: JobRecord) {
    await steps.read(ctx, async () => {
      await usage(ctx);
      if (fingerprintOf(ctx) !== record.fingerprint)
        throw new IdempotencyKeyReusedError(
          'This Idempotency-Key was used for a different request in the last 24 hours; use a new key for a new request.',
        );
      if (job.mode === 'async') {
        sendData(ctx, jobs.view(job));
        ctx.status = 202;
        ctx.set('Location', `/api/v1/jobs/${job.id}`);
        ctx.set('Preference-Applied', 'respond-async');
        return;
      }
      if (job.status === 'failed' && job.error)
        throw new ReplayedError(job.error.code, STATUS_OF[job.error.code] ?? 500, job.error.message);
      const view = jobs.view(job);
      if (view.result === undefined)
        throw new ExpiredError(
          `The request with this Idempotency-Key was answered at ${view.finished_at} and its outputs have expired ` +
            '(they are kept 1 hour); send it with a new key to run it again.',
        );
      sendData(ctx, view.result);
    });
  }

  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (key === '') return run(ctx, [...steps.counted, steps.read], next);
    const principal = ctx.state.principal;
    if (!principal) throw new Error('idempotency needs the auth middleware in front of it');
    if (!KEY_FORMAT.test(key)) {
      await usage(ctx);
      throw new InvalidInputError(
        'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 . _ : ~ - (a UUID will do).',
      );
    }
    const { userId } = principal;
    const now = Date.now();
    if (now - forgotAt > FORGET_EVERY_MS) {
      forgotAt = now;
      store
        .forget(now - KEY_TTL_MS)
        .catch((error: unknown) => ctx.state.log.warn('forgetting idempotency keys failed', { error }));
    }
    const deadline = now + deps.waitMs;
    const token = randomUUID();
    for (;;) {
      const claim = await store.claim(userId, key, token, Date.now(), Date.now() - KEY_TTL_MS);
      if (claim.first) return first(ctx, userId, key, token, next);
      const { record } = claim;
      const job = record.jobId === null ? undefined : await accounts.jobs.get(record.jobId);
      const left = deadline - Date.now();
      if (job && !isCallGone(job) && (job.mode === 'async' || job.finishedAt !== null))
        return replay(ctx, record, job);
      if (stale(record, job)) {
        // Its holder is gone without letting go: free the key (only this record, by its token).
        await store.release(userId, key, record.token);
        continue;
      }
      if (left <= 0) {
        await usage(ctx);
        throw new IdempotencyInProgressError(
          'The first request with this Idempotency-Key is still running; send this one again, with the same key, in a moment.',
        );
      }
      if (job && job.finishedAt === null) {
        const watch = jobs.watch(job.id, Math.min(left, 1_000));
        await watch.ended;
        watch.stop();
      } else await sleep(Math.min(POLL_MS, left));
    }
  };
}

/** A synchronous call's job canceled: its client went away or the server stopped, and no work came of it. */
function isCallGone(job: JobRecord): boolean {
  return job.mode === 'sync' && job.status === 'canceled';
}

/** A record nobody will bind or release: its synchronous job canceled, or never bound long past any request. */
function stale(record: IdempotencyRecord, job: JobRecord | undefined): boolean {
  if (job) return isCallGone(job);
  return Date.now() - record.createdAt > ABANDONED_AFTER_MS;
}
