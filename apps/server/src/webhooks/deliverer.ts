// Webhook delivery (issue #14; openapi.yaml, "Webhooks"): when a job with a callback_url ends, its
// event is stored with the delivery, then POSTed, signed, at least once: again after each failed
// attempt, on the schedule below, until a 2xx or the attempts run out. Every attempt is logged. The
// clock is injected (`now` and the timer), so tests drive the schedule and check attempts and their
// order, never wall time. Deliveries live in the store, so a restart goes on where the last process
// stopped, and several processes never make the same attempt (claimDue leases it).
import { randomBytes } from 'node:crypto';
import type { Job } from '@pdn/api-types';
import type { JobRecord, JobStore } from '../jobs/job-store.js';
import type { Logger } from '../logger.js';
import type { DeliveryStore } from './delivery-store.js';
import { type AttemptResult, postEvent } from './post-event.js';
import { signatureHeader } from './signature.js';
import type { WebhookSecrets } from './webhook-secrets.js';

/** Waits after attempts 1..6 (10 s, tripling): 7 attempts over about an hour. */
export const RETRY_DELAYS_MS = [10, 30, 90, 270, 810, 2430].map((seconds) => seconds * 1000);
/** Each attempt's whole exchange. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** While an attempt runs no other process takes it; past this, one may (the process died). */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;
const BATCH = 20;
/** How often due deliveries are looked for when nothing woke the deliverer. */
const POLL_MS = 1_000;
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
  /** The job as the API shows it (jobs/runner.ts view()), for the event. */
  view(record: JobRecord): Job;
  log: Logger;
  allowPrivate: boolean;
  clock?: Clock;
  post?: typeof postEvent;
}

const EVENT_TYPE = { succeeded: 'job.succeeded', failed: 'job.failed', canceled: 'job.canceled' } as const;

export function newEventId(): string {
  return `evt_${randomBytes(16).toString('base64url')}`;
}

export class WebhookDeliverer {
  readonly #deps: DelivererDeps;
  readonly #clock: Clock;
  readonly #post: typeof postEvent;
  #cancelTimer: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(deps: DelivererDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#post = deps.post ?? postEvent;
  }

  /** Before the job is stored: where to send its event. */
  subscribe(jobId: string, userId: number, url: string): Promise<void> {
    return this.#deps.deliveries.subscribe(jobId, userId, url, this.#clock.now());
  }

  /** The runner tells every job's end; only jobs with a waiting delivery make an event. */
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
    if (await this.#deps.deliveries.ready(record.id, { id, body }, now)) this.wake();
  }

  /** Makes due what a stopped process left waiting for jobs that ended meanwhile, then delivers. */
  async start(): Promise<void> {
    for (const jobId of await this.#deps.deliveries.waiting()) {
      const job = await this.#deps.jobs.get(jobId);
      if (!job) await this.#deps.deliveries.drop(jobId);
      else if (job.finishedAt !== null) await this.jobEnded(job);
    }
    void this.wake();
  }

  /** Delivers what is due now; resolves when this round (and any asked for meanwhile) is done. */
  wake(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#cancelTimer?.();
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#round();
      } while (this.#again && !this.#closed);
    })()
      .catch((error: unknown) => this.#deps.log.error('delivering webhooks failed', { error }))
      .finally(() => {
        this.#running = undefined;
        if (!this.#closed) this.#cancelTimer = this.#clock.after(POLL_MS, () => void this.wake());
      });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelTimer?.();
    await this.#running;
  }

  async #round(): Promise<void> {
    const { deliveries } = this.#deps;
    const now = this.#clock.now();
    await deliveries.forget(now - KEEP_MS);
    for (;;) {
      const batch = await deliveries.claimDue(this.#clock.now(), this.#clock.now() + LEASE_MS, BATCH);
      if (batch.length === 0) return;
      await Promise.all(batch.map((delivery) => this.#attempt(delivery)));
    }
  }

  async #attempt(delivery: Awaited<ReturnType<DeliveryStore['claimDue']>>[number]): Promise<void> {
    const { deliveries, secrets, log, allowPrivate } = this.#deps;
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
      allowPrivate,
    });
    const delivered = 'status' in result && result.status >= 200 && result.status < 300;
    const delay = RETRY_DELAYS_MS[delivery.attempts - 1];
    const fields = {
      event_id: eventId,
      job_id: delivery.jobId,
      attempt: delivery.attempts,
      ...('status' in result ? { status: result.status } : { reason: result.error }),
    };
    if (delivered) {
      await deliveries.settle(delivery.jobId, { state: 'delivered' });
      log.info('webhook delivered', fields);
    } else if (delay === undefined) {
      await deliveries.settle(delivery.jobId, { state: 'failed' });
      log.warn('webhook not delivered; no attempts left', fields);
    } else {
      await deliveries.settle(delivery.jobId, { state: 'due', retryAt: this.#clock.now() + delay });
      log.info('webhook attempt failed; trying again', { ...fields, retry_in_seconds: delay / 1000 });
    }
  }
}
