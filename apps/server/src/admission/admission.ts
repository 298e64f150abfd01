// Admission (STYLE.md 25; openapi.yaml, "Admission order and back-pressure"): one function from the
// caller, the request's head and the stores to one decision, taken before the body is read, so a
// refusal costs no upload. The order: a repeated Idempotency-Key is answered from its first request,
// not counted, once its user's hour has room and it has one of its user's places for calls in
// progress (it holds a connection and sends a body); then the hourly limit (`rate_limited`), the cap on unfinished jobs
// (`too_many_jobs`, asynchronous submissions) and, for a synchronous call, the user's calls in
// progress and the expected wait in the queue (`server_busy`). Only an admitted call is counted: a
// refusal after the hourly limit gives back the count the limit took, so a user whose hour is spent
// is told that first, and calls arriving together are held to the hour exactly.
import type { Plan, RateDecision, RateLimiter } from '../accounts/index.js';
import { planLimits } from '../accounts/index.js';
import type { UploadLimits } from '../config.js';
import { type IdempotencyKeys, isValidKey, type KeyClaim } from '../idempotency/idempotency-keys.js';
import type { JobOperation, JobStore } from '../jobs/job-store.js';
import { admissionRefusals, rateLimitDecision, syncCallWait } from '../metrics.js';
import type { Admitted, Decision, Refusal } from './decision.js';
import type { QueueWait } from './queue-wait.js';
import type { SyncCall, SyncCalls } from './sync-calls.js';

export type { Admitted, Decision, Refusal } from './decision.js';

/**
 * A synchronous call is taken only when the queue is expected to start it within this share of
 * PDN_MAX_SYNC_WAIT. The expected wait is an average, and under overload real waits spread around it:
 * taking calls expected within the whole bound, small merges offered at 4 times the capacity were
 * taken with waits close to it, and the unlucky ones were answered 503 at the deadline after waiting
 * in vain (p99 of the refusals 20.2 s instead of a few milliseconds). Half leaves room for an
 * estimate twice too short.
 */
const TAKE_WITHIN_SHARE = 0.5;

type Place = { kind: 'taken'; call: SyncCall } | { kind: 'refused'; refusal: Refusal };

/** Who calls: the authenticated user. */
export interface Caller {
  userId: number;
  plan: Plan;
}

/** What admission reads of the request: nothing of its body. */
export interface RequestHead {
  operation: JobOperation;
  /** `Prefer: respond-async`. */
  async: boolean;
  /** The Idempotency-Key header; `''` when absent. */
  idempotencyKey: string;
  /** Content-Length when sent. */
  bytes: number | undefined;
}

export interface AdmissionDeps {
  rateLimiter: RateLimiter;
  jobs: JobStore;
  keys: IdempotencyKeys;
  syncCalls: SyncCalls;
  queueWait: QueueWait;
  /** PDN_MAX_SYNC_WAIT: the longest a synchronous call may wait for a slot. */
  maxSyncWaitMs: number;
  uploadLimits: UploadLimits;
}

export class Admission {
  readonly #deps: AdmissionDeps;

  constructor(deps: AdmissionDeps) {
    this.#deps = deps;
  }

  async decide(caller: Caller, head: RequestHead): Promise<Decision> {
    const { keys } = this.#deps;
    const { idempotencyKey: key } = head;
    if (key === '') return this.#counted(caller, head, undefined);
    if (!isValidKey(key)) return this.#refuse(caller, { reason: 'invalid_idempotency_key' });
    // A repeat is judged like any call before it waits or sends its body: the hour must have room
    // (it is not counted), and it holds one of its user's places while it waits and uploads.
    let place: Place | undefined;
    let turnedAway: Decision | undefined;
    const admitRepeat = async () => {
      const hour = await this.#look(caller);
      if (!hour.allowed) turnedAway = this.#refuseRateLimited(hour);
      else {
        place = this.#replayPlace(caller, head);
        if (place.kind === 'refused') turnedAway = await this.#refuseBusy(caller, place.refusal);
      }
      return turnedAway === undefined;
    };
    const leave = () => {
      if (place?.kind === 'taken') place.call.leave();
    };
    let claim: KeyClaim;
    try {
      claim = await keys.claim(caller.userId, key, admitRepeat);
      if (claim.kind === 'replay') {
        const { record, job } = claim;
        return { kind: 'replay', record, job, window: await this.#look(caller), leave };
      }
    } catch (error) {
      leave();
      throw error;
    }
    leave();
    if (turnedAway !== undefined) return turnedAway;
    if (claim.kind === 'in_progress') return this.#refuse(caller, { reason: 'idempotency_in_progress' });
    if (claim.kind !== 'first') throw new Error(`unexpected key claim ${claim.kind}`);
    const held = { key, token: claim.token };
    try {
      const decision = await this.#counted(caller, head, held);
      // A first request refused did no work: its key is free for the same request again.
      if (decision.kind === 'refuse') await keys.settle(caller.userId, key, held.token, undefined);
      return decision;
    } catch (error) {
      await keys.settle(caller.userId, key, held.token, undefined);
      throw error;
    }
  }

  async #counted(
    caller: Caller,
    head: RequestHead,
    held: { key: string; token: string } | undefined,
  ): Promise<Decision> {
    const { rateLimiter, jobs, keys, uploadLimits } = this.#deps;
    const { unfinishedJobs } = planLimits(caller.plan, uploadLimits);
    const { userId } = caller;
    // Counted first, in one atomic step per call, so that calls arriving together are held to the
    // hour exactly, whatever else refuses them after; a later refusal gives the count back.
    const window = await this.#consume(caller);
    if (!window.allowed) return this.#refuseRateLimited(window);
    const uncount = async () => {
      if (window.event !== undefined) await rateLimiter.release(userId, window.event);
    };
    let call: SyncCall | undefined;
    let refusal: Refusal | undefined;
    try {
      if (head.async) {
        const unfinished = await jobs.countUnfinished(userId);
        if (unfinished >= unfinishedJobs)
          refusal = { reason: 'too_many_jobs', unfinished, cap: unfinishedJobs };
      } else {
        const taken = await this.#syncCall(caller, head);
        if (taken.kind === 'refused') refusal = taken.refusal;
        else call = taken.call;
      }
    } catch (error) {
      await uncount();
      throw error;
    }
    if (refusal !== undefined) {
      await uncount();
      return this.#refuseBusy(caller, refusal);
    }
    const admitted: Admitted = {
      window,
      unfinishedJobsCap: head.async ? unfinishedJobs : undefined,
      bind: async (fingerprint, jobId) => {
        call?.stored();
        if (held !== undefined) await keys.bind(userId, held.key, held.token, fingerprint, jobId);
      },
      refuseLate: async (reason) => {
        await uncount();
        admissionRefusals.inc({ code: reason });
        return this.#look(caller);
      },
      leave: () => call?.leave(),
      done: async ({ jobId, clientGone, answeredByJob }) => {
        call?.leave();
        // A synchronous call is counted once its job starts: one whose client went away before, or
        // which found no slot in time, did nothing.
        if (!answeredByJob) {
          const job = jobId === undefined ? undefined : await jobs.get(jobId).catch(() => undefined);
          const neverStarted =
            job === undefined ? clientGone && !head.async : job.mode === 'sync' && job.startedAt === null;
          if (neverStarted) await uncount();
        }
        if (held !== undefined) await keys.settle(userId, held.key, held.token, jobId);
      },
    };
    return { kind: 'admit', admitted };
  }

  /**
   * A synchronous call's place among its user's calls in progress, if the user has room, and the
   * queue is expected to start it well within the bound on its wait.
   */
  async #syncCall(caller: Caller, head: RequestHead): Promise<Place> {
    const { syncCalls, queueWait, maxSyncWaitMs } = this.#deps;
    const taken = this.#place(caller, head);
    if (taken.kind === 'refused') return taken;
    let expectedMs: number;
    try {
      // The others uploading here will queue before this call: all of them but this call itself.
      const uploading = syncCalls.uploading();
      uploading.set(caller.userId, (uploading.get(caller.userId) ?? 1) - 1);
      expectedMs = await queueWait.expectedMs(caller, head.operation, uploading);
    } catch (error) {
      taken.call.leave();
      throw error;
    }
    syncCallWait.observe(Math.min(expectedMs, Number.MAX_SAFE_INTEGER) / 1000);
    const takenWithinMs = maxSyncWaitMs * TAKE_WITHIN_SHARE;
    if (expectedMs <= takenWithinMs) return { kind: 'taken', call: taken.call };
    taken.call.leave();
    return {
      kind: 'refused',
      refusal: { reason: 'server_busy', over: 'wait', expectedMs, takenWithinMs, maxWaitMs: maxSyncWaitMs },
    };
  }

  /**
   * A repeated key's place among its user's calls in progress: it holds a connection, and its body
   * is read to compare it with the first request's. It queues no job, so it is never counted as one
   * that will.
   */
  #replayPlace(caller: Caller, head: RequestHead): Place {
    const place = this.#place(caller, head);
    if (place.kind === 'taken') place.call.stored();
    return place;
  }

  /** A place among the user's calls in progress, if its plan's calls and bytes have room. */
  #place(caller: Caller, head: RequestHead): Place {
    const limits = planLimits(caller.plan, this.#deps.uploadLimits);
    const bytes = head.bytes ?? limits.uploadBytes;
    const taken = this.#deps.syncCalls.take(caller.userId, bytes, {
      calls: limits.syncCalls,
      bytes: limits.syncBytes,
    });
    if (taken.kind === 'taken') return taken;
    const [held, limit] =
      taken.over === 'calls' ? [taken.held.calls, limits.syncCalls] : [taken.held.bytes, limits.syncBytes];
    return { kind: 'refused', refusal: { reason: 'server_busy', over: taken.over, held, limit } };
  }

  #refuseRateLimited(window: RateDecision): Decision {
    admissionRefusals.inc({ code: 'rate_limited' });
    // A window only looked at carries no retryAfter: the oldest request leaves it in resetIn.
    const retryAfterSeconds = window.retryAfter ?? Math.max(1, window.resetIn);
    return { kind: 'refuse', refusal: { reason: 'rate_limited', retryAfterSeconds }, window };
  }

  async #refuseBusy(caller: Caller, refusal: Refusal): Promise<Decision> {
    admissionRefusals.inc(
      refusal.reason === 'server_busy'
        ? { code: refusal.reason, reason: refusal.over }
        : { code: refusal.reason },
    );
    return { kind: 'refuse', refusal, window: await this.#look(caller) };
  }

  /** Counts the call if the hour has room; timed here, where the decision is made (GET /metrics). */
  async #consume(caller: Caller): Promise<RateDecision> {
    const { requestsPerHour } = planLimits(caller.plan, this.#deps.uploadLimits);
    const decided = rateLimitDecision.startTimer();
    const window = await this.#deps.rateLimiter.consume(caller.userId, requestsPerHour);
    decided();
    return window;
  }

  #look(caller: Caller): Promise<RateDecision> {
    const { requestsPerHour } = planLimits(caller.plan, this.#deps.uploadLimits);
    return this.#deps.rateLimiter.look(caller.userId, requestsPerHour);
  }

  async #refuse(caller: Caller, refusal: Refusal): Promise<Decision> {
    return { kind: 'refuse', refusal, window: await this.#look(caller) };
  }
}
