// Admission's refusals (admission/decision.ts) as the errors clients are answered with (openapi.yaml,
// "Admission order and back-pressure"): status, code, a message that says what to do, and Retry-After
// on every 429.
import { type Principal, planLimits, planTitle } from '../../accounts/index.js';
import type { Refusal } from '../../admission/admission.js';
import type { UploadLimits } from '../../config.js';
import {
  type ApiError,
  IdempotencyInProgressError,
  InvalidInputError,
  RateLimitedError,
  ServerBusyError,
  TooManyJobsError,
} from '../../errors.js';
import { POLL_AFTER_SECONDS } from '../../jobs/retention.js';
import { mebibytes } from '../sizes.js';

export function refusalError(refusal: Refusal, principal: Principal, uploadLimits: UploadLimits): ApiError {
  const plan = planTitle(principal.plan);
  switch (refusal.reason) {
    case 'invalid_idempotency_key':
      return new InvalidInputError(
        'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 . _ : ~ - (a UUID will do).',
      );
    case 'idempotency_in_progress':
      return new IdempotencyInProgressError(
        'The first request with this Idempotency-Key is still running; send this one again, with the same key, in a moment.',
      );
    case 'rate_limited':
      return new RateLimitedError(
        `Rate limit exceeded: the ${plan} plan allows ${planLimits(principal.plan, uploadLimits).requestsPerHour} requests per hour. ` +
          `Try again in ${refusal.retryAfterSeconds} seconds.`,
        { headers: { 'Retry-After': String(refusal.retryAfterSeconds) } },
      );
    case 'too_many_jobs':
      return tooManyJobs(refusal.unfinished, refusal.cap, plan);
    case 'server_busy':
      return serverBusy(refusal, plan);
  }
}

/** With Prefer: respond-async the same call would queue as a job, whatever the wait: each message says so. */
const QUEUE_IT =
  'or send it with `Prefer: respond-async` to queue it as a job and fetch the result when it is done.';

/** Made once: a new formatter per message cost each refusal some 0.14 ms of the event loop (profiled). */
const ONE_DECIMAL = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

/** "10 s", "0.5 s". */
function seconds(value: number): string {
  return `${ONE_DECIMAL.format(value)} s`;
}

function serverBusy(refusal: Extract<Refusal, { reason: 'server_busy' }>, plan: string): ApiError {
  switch (refusal.over) {
    case 'wait': {
      const expected = Math.ceil(refusal.expectedMs / 1000);
      const within = refusal.takenWithinMs / 1000;
      const shown = Number.isFinite(expected) ? `about ${expected} s` : 'until a worker is back';
      return new ServerBusyError(
        `The server is busy: this call would wait ${shown} for a free slot, and a synchronous call is taken only when ` +
          `expected to start within ${seconds(within)} (it may wait at most ${seconds(refusal.maxWaitMs / 1000)}). ` +
          `Send it again later, ${QUEUE_IT}`,
        Number.isFinite(expected) ? Math.min(60, Math.max(1, Math.ceil(expected - within))) : 5,
      );
    }
    case 'calls':
      return new ServerBusyError(
        `You have ${refusal.held} synchronous calls in progress; the ${plan} plan allows ${refusal.limit} at once. ` +
          `Send this one when one of them is answered, ${QUEUE_IT}`,
      );
    case 'bytes':
      return new ServerBusyError(
        `Your synchronous calls in progress carry ${mebibytes(refusal.held)} of uploads; the ${plan} plan allows ` +
          `${mebibytes(refusal.limit)} at once. Send this one when one of them is answered, ${QUEUE_IT}`,
      );
  }
}

/** A synchronous call that found no slot within the bound: not run, not counted (jobs/sync-call.ts). */
export function noSlotInTime(boundMs: number): ApiError {
  return new ServerBusyError(
    `The server is busy: this call waited ${Math.round(boundMs / 1000)} s, as long as synchronous calls may wait, ` +
      `without a free slot; it was not run, nor counted. Send it again later, ${QUEUE_IT}`,
  );
}

/** Also for a submission that finds the cap reached only as its job is stored. */
export function tooManyJobs(unfinished: number, cap: number, plan: string): ApiError {
  return new TooManyJobsError(
    `You have ${unfinished} unfinished jobs; the ${plan} plan allows ${cap} at once. ` +
      'Wait for some to finish (or cancel some), then submit again.',
    // A job ends no sooner than a poll would notice: the poll interval is the soonest worth trying.
    { headers: { 'Retry-After': String(POLL_AFTER_SECONDS) } },
  );
}
