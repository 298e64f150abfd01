// The Idempotency-Key policy (openapi.yaml, "Idempotency"; IETF draft-ietf-httpapi-idempotency-key-
// header) over its store: a request whose key is free takes it and goes on as any other, and names
// its job on the key before the job exists (bind), so a duplicate never finds it unbound once it runs;
// a request whose key is held waits, bounded, for the holder's answer, then is answered it again. A
// first request that did no work (refused, or a synchronous call whose client went away) frees its key.
import { randomUUID } from 'node:crypto';
import type { JobRecord, JobStore } from '../jobs/job-store.js';
import type { JobWaiters } from '../jobs/job-waiters.js';
import type { Logger } from '../logger.js';
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store.js';

/** How long a key is remembered (openapi.yaml, "Idempotency"). */
export const KEY_TTL_MS = 24 * 60 * 60_000;
/** The key's characters and length (openapi.yaml `IdempotencyKey`); a UUID fits. */
const KEY_FORMAT = /^[A-Za-z0-9._:~-]{1,255}$/;
/**
 * How long a duplicate waits, at most, before looking again at a key whose first request has no job
 * yet. A first request in this process wakes it as soon as it binds or frees the key; one in another
 * process is seen at the next look.
 */
const LOOK_AGAIN_MS = 1_000;
/** How long a duplicate waits on the first request's job at a time before looking at the key again. */
const JOB_WAIT_MS = 1_000;
/**
 * A key taken by a request that never bound a job nor let go of it (its process died): free once
 * that request could no longer be running, past the server's 10 minutes per request (408).
 */
const ABANDONED_AFTER_MS = 11 * 60_000;
const FORGET_EVERY_MS = 60_000;

export type KeyClaim =
  /** The key was free: this request is the first, and holds it with `token`. */
  | { kind: 'first'; token: string }
  /** The first request has its answer: `job`, to answer again to the same request. */
  | { kind: 'replay'; record: IdempotencyRecord; job: JobRecord }
  /** The first request is still running past the wait. */
  | { kind: 'in_progress' }
  /** A repeat that `admitRepeat` turned away before it waited. */
  | { kind: 'not_admitted' };

/** Whether a repeat of a held key may wait for its answer; false turns it away. */
export type AdmitRepeat = () => Promise<boolean>;

export interface IdempotencyKeysDeps {
  store: IdempotencyStore;
  jobs: JobStore;
  waiters: JobWaiters;
  /** How long a duplicate waits for the first request's answer (PDN_IDEMPOTENCY_WAIT_SECONDS). */
  waitMs: number;
  log: Logger;
  now?: () => number;
}

/** A key's name among the changes this process tells. */
const changeOf = (userId: number, key: string) => `${userId}:${key}`;

/** Wakes the duplicates waiting in this process on a key when its first request here binds or frees it. */
class KeyChanges {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Resolves at the key's next change, or after `timeoutMs`. */
  next(name: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.#waiting.get(name) ?? new Set();
      this.#waiting.set(name, waiting);
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0 && this.#waiting.get(name) === waiting) this.#waiting.delete(name);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      waiting.add(wake);
    });
  }

  tell(name: string): void {
    for (const wake of [...(this.#waiting.get(name) ?? [])]) wake();
  }
}

export function isValidKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** A synchronous call's job canceled: its client went away or the server stopped, and no work came of it. */
function isCallGone(job: JobRecord): boolean {
  return job.mode === 'sync' && job.status === 'canceled';
}

export class IdempotencyKeys {
  readonly #deps: IdempotencyKeysDeps;
  readonly #now: () => number;
  readonly #changes = new KeyChanges();
  #forgotAt = 0;

  constructor(deps: IdempotencyKeysDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Takes the key for a new request, or waits (bounded) for the request that holds it. A repeat is
   * first put to `admitRepeat`, once, before it waits or is answered.
   */
  async claim(userId: number, key: string, admitRepeat: AdmitRepeat = async () => true): Promise<KeyClaim> {
    const { store, jobs, waiters, waitMs } = this.#deps;
    this.#forgetNowAndThen();
    const deadline = this.#now() + waitMs;
    const token = randomUUID();
    let repeatAdmitted = false;
    for (;;) {
      const claim = await store.claim(userId, key, token, this.#now(), this.#now() - KEY_TTL_MS);
      if (claim.first) return { kind: 'first', token };
      if (!repeatAdmitted) {
        if (!(await admitRepeat())) return { kind: 'not_admitted' };
        repeatAdmitted = true;
      }
      const { record } = claim;
      const job = record.jobId === null ? undefined : await jobs.get(record.jobId);
      if (job && !isCallGone(job) && (job.mode === 'async' || job.finishedAt !== null))
        return { kind: 'replay', record, job };
      if (this.#stale(record, job)) {
        // Its holder is gone without letting go: free the key (only this record, by its token).
        await store.release(userId, key, record.token);
        continue;
      }
      const left = deadline - this.#now();
      if (left <= 0) return { kind: 'in_progress' };
      if (job && job.finishedAt === null)
        await waiters.ended(job.id, { timeoutMs: Math.min(left, JOB_WAIT_MS) });
      else await this.#changes.next(changeOf(userId, key), Math.min(LOOK_AGAIN_MS, left));
    }
  }

  /** Names the first request's job (and what the request was) on the key, if `token` still holds it. */
  async bind(userId: number, key: string, token: string, fingerprint: string, jobId: string): Promise<void> {
    await this.#deps.store.bind(userId, key, token, fingerprint, jobId);
    this.#changes.tell(changeOf(userId, key));
  }

  /** The first request is over: its key is freed unless it did work (its job, bound, ran or runs). */
  async settle(userId: number, key: string, token: string, jobId: string | undefined): Promise<void> {
    const { store, jobs, log } = this.#deps;
    const job = jobId === undefined ? undefined : await jobs.get(jobId).catch(() => undefined);
    if (job && !isCallGone(job)) return;
    await store
      .release(userId, key, token)
      .catch((error: unknown) => log.warn('freeing an idempotency key failed', { error }));
    this.#changes.tell(changeOf(userId, key));
  }

  /** A record nobody will bind or release: its synchronous job canceled, or never bound long past any request. */
  #stale(record: IdempotencyRecord, job: JobRecord | undefined): boolean {
    if (job) return isCallGone(job);
    return this.#now() - record.createdAt > ABANDONED_AFTER_MS;
  }

  #forgetNowAndThen(): void {
    const now = this.#now();
    if (now - this.#forgotAt <= FORGET_EVERY_MS) return;
    this.#forgotAt = now;
    this.#deps.store
      .forget(now - KEY_TTL_MS)
      .catch((error: unknown) => this.#deps.log.warn('forgetting idempotency keys failed', { error }));
  }
}
