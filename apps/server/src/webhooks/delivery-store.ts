// Webhook deliveries (openapi.yaml, "Webhooks", Delivery): one per job submitted with a
// `callback_url`, made at submission (`waiting`), due once the job ends with its event stored, then
// attempted until delivered or out of attempts. An async interface with no connection type (STYLE.md
// 14; sqlite-delivery-store.ts and pg-delivery-store.ts, suite delivery-store.contract.ts); the retry
// policy is deliverer.ts's. Each attempt's outcome is kept with its delivery, for the owner to read
// on the webhooks page, and forgotten with it.
import type { AttemptResult } from './post-event.js';

export type DeliveryState = 'waiting' | 'due' | 'delivered' | 'failed';

export interface Delivery {
  jobId: string;
  userId: number;
  url: string;
  /** The URL's receiving host (receiving-host.ts), recorded with it. */
  host: string;
  state: DeliveryState;
  /** Set when due: the event's id and its JSON body, the same on every attempt. */
  eventId: string | null;
  body: string | null;
  /** Attempts made so far. */
  attempts: number;
  /** Unix milliseconds: when the next attempt may start (while due). */
  nextAttemptAt: number | null;
}

/** One attempt, as its owner reads it on the webhooks page. */
export interface AttemptRecord {
  /** 1 for the first. */
  number: number;
  /** Unix milliseconds: when it ended. */
  at: number;
  /** The receiver's status and the start of its answer, or why there was none. */
  result: AttemptResult;
}

/** A delivery with when it was made and its attempts so far, oldest first. */
export interface DeliveryHistory extends Delivery {
  createdAt: number;
  attemptLog: AttemptRecord[];
}

/** What one claim may take (attempt-slots.ts): at most `limit`, none of these users' or hosts'. */
export interface ClaimRoom {
  limit: number;
  skipUsers: readonly number[];
  skipHosts: readonly string[];
}

export interface DeliveryStore {
  /** Records a job's callback URL before the job is stored. */
  subscribe(jobId: string, userId: number, url: string, now: number): Promise<void>;
  /** The job ended: its waiting delivery becomes due at `now` with this event. False if none was waiting. */
  ready(jobId: string, event: { id: string; body: string }, now: number): Promise<boolean>;
  /** Ids of the jobs whose deliveries still wait for their end (checked after a restart). */
  waiting(): Promise<string[]>;
  /**
   * Atomically takes up to `room.limit` due deliveries whose time has come, counting the attempt and
   * pushing their next attempt to `leaseUntil`, so no other process takes them meanwhile. Fair: at
   * most one per user and one per receiving host, each the oldest due of its user and of its host,
   * the oldest first; the users and hosts `room` skips keep theirs due for a later claim.
   */
  claimDue(now: number, leaseUntil: number, room: ClaimRoom): Promise<Delivery[]>;
  /** When the soonest due delivery not yet due at `now` will be (undefined: none is waiting). */
  nextAttemptAfter(now: number): Promise<number | undefined>;
  /**
   * The outcome of the attempt just claimed, kept with it in one step: delivered, failed for good, or
   * due again at `retryAt`.
   */
  settle(
    jobId: string,
    outcome: { state: 'delivered' | 'failed' } | { state: 'due'; retryAt: number },
    attempt: AttemptRecord,
  ): Promise<void>;
  /** `userId`'s latest `limit` deliveries, the newest first, each with its attempts. */
  recent(userId: number, limit: number): Promise<DeliveryHistory[]>;
  /**
   * Makes a delivered or failed delivery of `userId`'s due again at `now`, for one more attempt (and
   * the retries its attempts so far leave it). False when they have no such delivery.
   */
  sendAgain(jobId: string, userId: number, now: number): Promise<boolean>;
  /** Drops a waiting delivery whose job will never end (it was never stored). */
  drop(jobId: string): Promise<void>;
  /** Forgets deliveries made at or before `before`. */
  forget(before: number): Promise<void>;
  get(jobId: string): Promise<Delivery | undefined>;
}
