// What admission decides about a call to one of the operations, before its body is read (openapi.yaml,
// "Admission order and back-pressure"), in terms of the call and the server, not of HTTP: the HTTP
// layer maps a decision to a status, headers and a message (http/routes/admission-answers.ts).
import type { RateDecision } from '../accounts/index.js';
import type { IdempotencyRecord } from '../idempotency/idempotency-store.js';
import type { JobRecord } from '../jobs/job-store.js';

export type Refusal =
  /** The Idempotency-Key is not one the contract allows. */
  | { reason: 'invalid_idempotency_key' }
  /** The first request with the key is still running past the duplicate's wait. */
  | { reason: 'idempotency_in_progress' }
  /** The hourly limit is spent: `window` says until when. */
  | { reason: 'rate_limited'; retryAfterSeconds: number }
  /** An asynchronous submission over the plan's cap on unfinished jobs. */
  | { reason: 'too_many_jobs'; unfinished: number; cap: number }
  /**
   * The queue is too long: a synchronous call is expected to wait `expectedMs`, and is taken only when
   * expected to start within `takenWithinMs`, a share of the `maxWaitMs` it may wait.
   */
  | { reason: 'server_busy'; over: 'wait'; expectedMs: number; takenWithinMs: number; maxWaitMs: number }
  /** The user already has as many synchronous calls in progress, or as many bytes of their uploads, as the plan allows. */
  | { reason: 'server_busy'; over: 'calls' | 'bytes'; held: number; limit: number };

/** A call let in: counted, its key (if any) held, its place (if synchronous) taken until done(). */
export interface Admitted {
  /** The caller's hourly window with this call counted. */
  window: RateDecision;
  /** The plan's cap on unfinished jobs, held to again as an asynchronous call's job is stored. */
  unfinishedJobsCap: number | undefined;
  /** Names the call's job on its Idempotency-Key before the job exists (nothing without a key). */
  bind(fingerprint: string, jobId: string): Promise<void>;
  /** Gives the call back with a refusal that came after it was counted; the window after. */
  refuseLate(reason: 'too_many_jobs'): Promise<RateDecision>;
  /** Frees the call's place: its client went away, or it was answered. */
  leave(): void;
  /**
   * The call is over: its place freed; a synchronous call whose job never started (its client went
   * away first, or it found no slot in time) given back to the hourly limit; its key freed unless its
   * job did work. `clientGone`: the client left before the answer. `answeredByJob`: its job's result
   * answered it, or its job was stored to run: the job counts, and the store need not be asked.
   */
  done(outcome: { jobId: string | undefined; clientGone: boolean; answeredByJob: boolean }): Promise<void>;
}

export type Decision =
  | { kind: 'refuse'; refusal: Refusal; window: RateDecision }
  /**
   * A repeated Idempotency-Key whose first request has its answer: told once the body is compared.
   * It holds a place among its user's calls in progress until `leave()`.
   */
  | { kind: 'replay'; record: IdempotencyRecord; job: JobRecord; window: RateDecision; leave(): void }
  | { kind: 'admit'; admitted: Admitted };
