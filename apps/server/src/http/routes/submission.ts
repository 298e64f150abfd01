// POST to any of the five operations (openapi.yaml, "Jobs", "Admission order and back-pressure",
// "Idempotency", "Webhooks"), in one order: admission decides from the head (admission/admission.ts);
// a repeated Idempotency-Key is answered from its first request (replay.ts); an admitted call's body is
// read, its callback_url and the operation's own parts checked, and its job submitted. With `Prefer:
// respond-async` the job is answered `202` at once with where to poll it; without, the call waits for
// its job (jobs/sync-call.ts) and is answered the operation's `data` or its error.
import type { Middleware } from 'koa';
import { planLimits, planTitle } from '../../accounts/index.js';
import type { Admission } from '../../admission/admission.js';
import type { UploadLimits } from '../../config.js';
import { InvalidInputError } from '../../errors.js';
import { callJob, type Jobs, NoSlotInTime, newJobId, UnfinishedJobsCapReached } from '../../jobs/index.js';
import type { Logger } from '../../logger.js';
import { admissionRefusals } from '../../metrics.js';
import type { AddressPolicy } from '../../webhooks/address-policy.js';
import { checkCallbackUrl } from '../../webhooks/callback-url.js';
import type { WebhookDeliverer } from '../../webhooks/deliverer.js';
import { clientGone } from '../client-gone.js';
import type { PartsSpec } from '../multipart.js';
import { asksForJob } from '../prefer.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';
import { readUpload, type UploadDeps } from '../read-upload.js';
import { sendData } from '../respond.js';
import type { AppContext, AppState } from '../state.js';
import { optionalField, type Upload } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { principalOf } from './principal.js';
import { noSlotInTime, refusalError, tooManyJobs } from './refusals.js';
import { replay } from './replay.js';
import { fingerprintOf } from './request-fingerprint.js';

export const CALLBACK_FIELD = 'callback_url';

export interface SubmissionDeps {
  admission: Admission;
  jobs: Jobs;
  webhooks: Pick<WebhookDeliverer, 'subscribe'>;
  uploads: UploadDeps;
  uploadLimits: UploadLimits;
  /** PDN_MAX_SYNC_WAIT: the longest a synchronous call's job may wait to start. */
  maxSyncWaitMs: number;
  /** Where callback URLs may point (PDN_WEBHOOK_ALLOW_CIDRS opens ranges). */
  webhookPolicy: AddressPolicy;
  log: Logger;
}

/** Every operation's parts, with the callback_url every submission may carry. */
function withCallbackField(parts: PartsSpec): PartsSpec {
  return { ...parts, fields: [...parts.fields, CALLBACK_FIELD] };
}

/** The checked callback_url; only an asynchronous submission may name one. */
async function callbackOf(
  ctx: AppContext,
  upload: Upload,
  policy: AddressPolicy,
): Promise<string | undefined> {
  const raw = optionalField(upload, CALLBACK_FIELD);
  if (raw === undefined) return undefined;
  if (!asksForJob(ctx))
    throw new InvalidInputError(
      '`callback_url` goes with `Prefer: respond-async` only: a synchronous call answers with its result.',
    );
  return checkCallbackUrl(raw, policy);
}

export function submissionRoute(route: OperationRoute, deps: SubmissionDeps): Middleware<AppState> {
  const parts = withCallbackField(route.parts);
  return async (ctx) => {
    const principal = principalOf(ctx);
    const async = asksForJob(ctx);
    const length = ctx.get('Content-Length');
    const decision = await deps.admission.decide(principal, {
      operation: route.operation,
      async,
      idempotencyKey: ctx.get('Idempotency-Key'),
      bytes: /^[0-9]{1,15}$/.test(length) ? Number(length) : undefined,
    });
    if (decision.kind === 'refuse') {
      ctx.set(rateLimitHeaders(decision.window));
      throw refusalError(decision.refusal, principal, deps.uploadLimits);
    }
    if (decision.kind === 'replay') {
      ctx.res.once('close', decision.leave);
      try {
        return await replay(ctx, decision, parts, deps);
      } finally {
        decision.leave();
      }
    }
    const { admitted } = decision;
    ctx.set(rateLimitHeaders(admitted.window));
    // A client that went away is answered by nobody: its place is free for the next caller (one
    // sending the call again at once, say) while its canceled work winds down.
    ctx.res.once('close', admitted.leave);
    let jobId: string | undefined;
    let answeredByJob = false;
    try {
      await readUpload(ctx, principal.plan, parts, deps.uploads, async (upload) => {
        const callbackUrl = await callbackOf(ctx, upload, deps.webhookPolicy);
        const { files, params } = route.request(upload, principal);
        jobId = newJobId();
        ctx.state.jobId = jobId;
        // The key names the job before it exists, so a duplicate never finds it unbound once it runs.
        await admitted.bind(fingerprintOf(ctx, upload), jobId);
        if (callbackUrl !== undefined) await deps.webhooks.subscribe(jobId, principal.userId, callbackUrl);
        const submission = {
          id: jobId,
          userId: principal.userId,
          operation: route.operation,
          params,
          files,
          requestId: ctx.state.requestId,
          unfinishedJobsCap: admitted.unfinishedJobsCap,
        };
        if (!async) {
          const { queue, waiters, views } = deps.jobs;
          const call = { queue, waiters, views, log: ctx.state.log, maxWaitMs: deps.maxSyncWaitMs };
          const result = await callJob(call, submission, upload.signal).catch((error: unknown) => {
            if (!(error instanceof NoSlotInTime)) throw error;
            admissionRefusals.inc({ code: 'server_busy', reason: 'deadline' });
            throw noSlotInTime(error.boundMs);
          });
          sendData(ctx, result);
          answeredByJob = true;
          return;
        }
        const record = await deps.jobs.queue.add({ ...submission, mode: 'async' }).catch(async (error) => {
          if (!(error instanceof UnfinishedJobsCapReached)) throw error;
          // Found reached as the job was stored, by submissions racing past admission together.
          ctx.set(rateLimitHeaders(await admitted.refuseLate('too_many_jobs')));
          const { unfinishedJobs } = planLimits(principal.plan, deps.uploadLimits);
          throw tooManyJobs(error.unfinished, unfinishedJobs, planTitle(principal.plan));
        });
        answeredByJob = true;
        sendData(ctx, deps.jobs.views.view(record));
        ctx.status = 202;
        ctx.set('Location', `/api/v1/jobs/${record.id}`);
        ctx.set('Preference-Applied', 'respond-async');
      });
    } finally {
      await admitted.done({ jobId, clientGone: clientGone(ctx), answeredByJob });
    }
  };
}
