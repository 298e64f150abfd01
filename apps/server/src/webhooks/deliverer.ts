// Webhook delivery (openapi.yaml, "Webhooks"): when a job with a callback_url ends, its event is stored
// with the delivery, then POSTed, signed, at least once: again after each failed attempt, on the
// schedule below, until a 2xx or the attempts run out. Every attempt is logged. The deliverer hears of
// ends from the jobs' events: those this process recorded, whose record comes with them (the process
// that records an end makes its event); what a stopped process left is taken up at start.
//
// Each attempt runs on its own: a round claims what is due and has room (attempt-slots.ts caps the
// attempts in flight per process, user and receiving host), starts the attempts and returns; an
// attempt that ends frees its slot and asks for another round. So a receiver that never answers
// holds its own slots, never another's attempt. Retries are delayed work: after each round a timer
// is set for the soonest due time in the store, or for a slow look (LOOK_MS) when that is further,
// which finds what other processes sharing the store left due (a lease that ran out).
//
// The clock is injected (`now` and the timer), so tests drive the schedule and check attempts and their
// order, never wall time. Deliveries live in the store, so a restart goes on where the last process
// stopped, and several processes never make the same attempt (claimDue leases it).
import { randomBytes } from 'node:crypto';
import type { Job } from '@pdn/api-types';
import { CoalescedRuns } from '../coalesced-runs.js';
import type { JobEvents, JobRecord, JobStore } from '../jobs/index.js';
import type { Logger } from '../logger.js';
import type { AddressPolicy } from './address-policy.js';
import { type AttemptCaps, AttemptSlots } from './attempt-slots.js';
import type { Delivery, DeliveryHistory, DeliveryStore } from './delivery-store.js';
import { type AttemptResult, postEvent } from './post-event.js';
import { signatureHeader } from './signature.js';
import type { WebhookSecrets } from './webhook-secrets.js';

/** Waits after attempts 1..6 (10 s, tripling): 7 attempts over about an hour. */
export const RETRY_DELAYS_MS = [10, 30, 90, 270, 810, 2430].map((seconds) => seconds * 1000);
/** Each attempt's whole exchange. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** While an attempt runs no other process takes it; past this, one may (the process died). */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;
/**
 * The longest the deliverer sleeps without looking at the store. Its own retries wake it on time
 * (the timer goes to the soonest due time); this look is for what it cannot hear of: a lease that
 * another process, stopped mid-attempt, left to run out.
 */
const LOOK_MS = 30_000;
/** How many of a user's deliveries the webhooks page lists. */
const RECENT_DELIVERIES = 20;
/** Deliveries are forgotten with their jobs, 24 hours after the end. */
const KEEP_MS = 24 * 60 * 60_000 + 2 * 60 * 60_000;

export interface Clock {
  now(): number;
  /** Calls `run` after `ms`; returns how to cancel. */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface DelivererDeps {
  deliveries: DeliveryStore;
  secrets: WebhookSecrets;
  jobs: JobStore;
  /** Where job ends are heard of. */
  events: JobEvents;
  /** The job as the API shows it (jobs/job-view.ts), for the event. */
  view(record: JobRecord): Job;
  log: Logger;
  /** Where attempts may connect (PDN_WEBHOOK_ALLOW_CIDRS opens ranges). */
  policy: AddressPolicy;
  clock?: Clock;
  post?: typeof postEvent;
  /** Attempts in flight at once (attempt-slots.ts has the figures and why). */
  caps?: AttemptCaps;
}

const EVENT_TYPE = { succeeded: 'job.succeeded', failed: 'job.failed', canceled: 'job.canceled' } as const;

export function newEventId(): string {
  return `evt_${randomBytes(16).toString('base64url')}`;
}

export class WebhookDeliverer {
  readonly #deps: DelivererDeps;
  readonly #clock: Clock;
  readonly #post: typeof postEvent;
  readonly #slots: AttemptSlots;
  /** The attempts under way, each settling once it has recorded its outcome. */
  readonly #attempts = new Set<Promise<void>>();
  #cancelTimer: (() => void) | undefined;
  readonly #rounds = new CoalescedRuns(() => this.#roundThenSleep());
  /** When old deliveries are next forgotten: once per look, not on every round. */
  #forgetAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  #unsubscribe: (() => void) | undefined;

  constructor(deps: DelivererDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#post = deps.post ?? postEvent;
    this.#slots = new AttemptSlots(deps.caps);
  }

  /** Before the job is stored: where to send its event. */
  subscribe(jobId: string, userId: number, url: string): Promise<void> {
    return this.#deps.deliveries.subscribe(jobId, userId, url, this.#clock.now());
  }

  /** A job's end, as recorded; only jobs with a waiting delivery make an event. */
  async jobEnded(record: JobRecord): Promise<void> {
    // A synchronous call never names a callback (http/middleware/callback-url.ts): nothing to look up.
    if (record.mode === 'sync') return;
    if (record.status !== 'succeeded' && record.status !== 'failed' && record.status !== 'canceled') return;
    const now = this.#clock.now();
    const id = newEventId();
    const body = JSON.stringify({
      id,
      type: EVENT_TYPE[record.status],
      created_at: new Date(now).toISOString(),
      data: { job: this.#deps.view(record) },
    });
    if (await this.#deps.deliveries.ready(record.id, { id, body }, now)) this.#deliverSoon();
  }

  /**
   * Hears of the ends this process records from now on, makes due what a stopped process left waiting
   * for jobs that ended meanwhile, then delivers.
   */
  async start(): Promise<void> {
    const { events, log } = this.#deps;
    this.#unsubscribe = events.onEnded((end) => {
      if (end.record === undefined) return;
      this.jobEnded(end.record).catch((error: unknown) =>
        log.error('recording a job end for its webhook failed', { job_id: end.id, error }),
      );
    });
    for (const jobId of await this.#deps.deliveries.waiting()) {
      const job = await this.#deps.jobs.get(jobId);
      if (!job) await this.#deps.deliveries.drop(jobId);
      else if (job.finishedAt !== null) await this.jobEnded(job);
    }
    this.#deliverSoon();
  }

  /** `userId`'s latest deliveries, the newest first, with their attempts: for the webhooks page. */
  recent(userId: number): Promise<DeliveryHistory[]> {
    return this.#deps.deliveries.recent(userId, RECENT_DELIVERIES);
  }

  /**
   * Sends a delivered or failed event of `userId`'s once more, now, signed with their current
   * secret, as every attempt is. False when they have no such delivery.
   */
  async sendAgain(jobId: string, userId: number): Promise<boolean> {
    const again = await this.#deps.deliveries.sendAgain(jobId, userId, this.#clock.now());
    if (again) this.#deliverSoon();
    return again;
  }

  /**
   * Delivers what is due now; resolves once the attempts this starts, and those their ends make room
   * for, have settled (a test's step on its clock).
   */
  async wake(): Promise<void> {
    this.#deliverSoon();
    await this.#rounds.idle();
    await this.#settled();
  }

  /** Starts no more attempts and waits for those under way (each bounded by ATTEMPT_TIMEOUT_MS). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    this.#cancelTimer?.();
    await this.#rounds.idle();
    await this.#settled();
  }

  #deliverSoon(): void {
    if (!this.#closed) void this.#rounds.request();
  }

  async #settled(): Promise<void> {
    while (this.#attempts.size > 0) {
      await Promise.all(this.#attempts);
      await this.#rounds.idle();
    }
  }

  async #roundThenSleep(): Promise<void> {
    let sleepMs = LOOK_MS;
    try {
      sleepMs = await this.#round();
    } catch (error) {
      this.#deps.log.error('delivering webhooks failed', { error });
    }
    this.#cancelTimer?.();
    if (!this.#closed) this.#cancelTimer = this.#clock.after(sleepMs, () => this.#deliverSoon());
  }

  /** Starts every due attempt there is room for; returns how long to sleep before the next look. */
  async #round(): Promise<number> {
    const { deliveries } = this.#deps;
    let now = this.#clock.now();
    if (now >= this.#forgetAt) {
      await deliveries.forget(now - KEEP_MS);
      this.#forgetAt = now + LOOK_MS;
    }
    for (let room = this.#slots.room(); room.limit > 0 && !this.#closed; room = this.#slots.room()) {
      now = this.#clock.now();
      const claimed = await deliveries.claimDue(now, now + LEASE_MS, room);
      if (claimed.length === 0) break;
      for (const delivery of claimed) this.#start(delivery);
    }
    // What was due by `now` and not claimed waits for a slot, and an attempt's end wakes the deliverer.
    const next = await deliveries.nextAttemptAfter(now);
    return Math.min(LOOK_MS, Math.max(0, (next ?? Number.POSITIVE_INFINITY) - this.#clock.now()));
  }

  #start(delivery: Delivery): void {
    this.#slots.take(delivery);
    const attempt = this.#attempt(delivery)
      .catch((error: unknown) =>
        this.#deps.log.error('a webhook attempt failed to run', { job_id: delivery.jobId, error }),
      )
      .finally(() => {
        this.#slots.release(delivery);
        this.#attempts.delete(attempt);
        this.#deliverSoon();
      });
    this.#attempts.add(attempt);
  }

  async #attempt(delivery: Delivery): Promise<void> {
    const { deliveries, secrets, log, policy } = this.#deps;
    const body = delivery.body ?? '';
    const eventId = delivery.eventId ?? '';
    const signature = signatureHeader(
      body,
      await secrets.signing(delivery.userId),
      Math.floor(this.#clock.now() / 1000),
    );
    const result: AttemptResult = await this.#post({
      url: delivery.url,
      body,
      headers: { 'pdn-signature': signature, 'pdn-event-id': eventId, 'user-agent': 'pdn-webhooks/1' },
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      policy,
    });
    const delivered = 'status' in result && result.status >= 200 && result.status < 300;
    const delay = RETRY_DELAYS_MS[delivery.attempts - 1];
    const attempt = { number: delivery.attempts, at: this.#clock.now(), result };
    const fields = {
      event_id: eventId,
      job_id: delivery.jobId,
      attempt: delivery.attempts,
      ...('status' in result ? { status: result.status } : { reason: result.error }),
    };
    if (delivered) {
      await deliveries.settle(delivery.jobId, { state: 'delivered' }, attempt);
      log.info('webhook delivered', fields);
    } else if (delay === undefined) {
      await deliveries.settle(delivery.jobId, { state: 'failed' }, attempt);
      log.warn('webhook not delivered; no attempts left', fields);
    } else {
      await deliveries.settle(delivery.jobId, { state: 'due', retryAt: this.#clock.now() + delay }, attempt);
      log.info('webhook attempt failed; trying again', { ...fields, retry_in_seconds: delay / 1000 });
    }
  }
}
