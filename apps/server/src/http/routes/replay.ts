// A repeated Idempotency-Key whose first request has its answer (openapi.yaml, "Idempotency"): the body
// is read only to tell the same request from a different one, and the first answer is given again,
// doing no work: the job as it stands for an asynchronous submission, the first call's `data` with
// download URLs signed afresh (or its error) for a synchronous one, `410` once its outputs expired.
import type { ErrorCode } from '@pdn/api-types';
import type { Decision } from '../../admission/admission.js';
import { ExpiredError, IdempotencyKeyReusedError, ReplayedError } from '../../errors.js';
import type { Jobs } from '../../jobs/index.js';
import type { PartsSpec } from '../multipart.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';
import { readUpload, type UploadDeps } from '../read-upload.js';
import { sendData } from '../respond.js';
import type { AppContext } from '../state.js';
import { principalOf } from './principal.js';
import { fingerprintOf } from './request-fingerprint.js';

/** The status a failed job's stored error went out with (errors.ts). */
const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  payload_too_large: 413,
  service_unavailable: 503,
  insufficient_storage: 507,
};

export async function replay(
  ctx: AppContext,
  decision: Extract<Decision, { kind: 'replay' }>,
  parts: PartsSpec,
  deps: { jobs: Jobs; uploads: UploadDeps },
): Promise<void> {
  const { record, job, window } = decision;
  ctx.set(rateLimitHeaders(window));
  await readUpload(ctx, principalOf(ctx).plan, parts, deps.uploads, async (upload) => {
    if (fingerprintOf(ctx, upload) !== record.fingerprint)
      throw new IdempotencyKeyReusedError(
        'This Idempotency-Key was used for a different request in the last 24 hours; use a new key for a new request.',
      );
    const view = deps.jobs.views.view(job);
    if (job.mode === 'async') {
      sendData(ctx, view);
      ctx.status = 202;
      ctx.set('Location', `/api/v1/jobs/${job.id}`);
      ctx.set('Preference-Applied', 'respond-async');
      return;
    }
    if (job.status === 'failed' && job.error)
      throw new ReplayedError(job.error.code, STATUS_OF[job.error.code] ?? 500, job.error.message);
    if (view.result === undefined)
      throw new ExpiredError(
        `The request with this Idempotency-Key was answered at ${view.finished_at} and its outputs have expired ` +
          '(they are kept 1 hour); send it with a new key to run it again.',
      );
    sendData(ctx, view.result);
  });
}
