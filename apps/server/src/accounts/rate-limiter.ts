// Per-user rate limiting over an exact rolling one-hour window (v1 specification, Limits).
// The policy lives here once; each backend supplies one atomic primitive, RateEventStore.admit(): count
// the user's requests younger than an hour and, when fewer than the limit, record this one, all under
// one lock (SQLite: an immediate transaction), so concurrent requests, even from other processes,
// cannot both take the last slot: 50 simultaneous requests from a fresh Free user admit exactly 10.
// Refused requests are not recorded, so hammering a limit does not push the reset further away.
// A request refused after it was counted, by a check that counts nothing (the unfinished-jobs cap
// found reached as its job is stored), is given back: release() forgets the one event admit() recorded.
// Requests on an unlimited plan are recorded too, so their usage can be shown.

export const WINDOW_MS = 60 * 60 * 1000;

/** The user's window as the store saw it just before this request. */
export interface RateWindow {
  /** Requests younger than WINDOW_MS. */
  used: number;
  /** When the oldest of them was admitted; null when there are none. */
  oldest: number | null;
}

/** Names the one event admit() recorded, in the store's own terms, for release(). */
export type RateEventId = string;

/** What admit() saw and did: the window before this request, and the event recorded for it if any. */
export type Admission = RateWindow & ({ admitted: true; event: RateEventId } | { admitted: false });

export interface RateEventStore {
  /**
   * Atomically: drop events older than the window, count the rest and, when `limit` is null or above
   * that count, record one at `now`. Returns the window before the insert, and the event inserted.
   */
  admit(userId: number, limit: number | null, now: number): Promise<Admission>;
  /** Forgets the event admit() recorded, and only that one; nothing if it already left the window. */
  release(userId: number, event: RateEventId): Promise<void>;
  /** The user's events younger than the window at `now`, counted per `slotMs` slot, oldest slot first. */
  histogram(userId: number, now: number, slotMs: number): Promise<number[]>;
  /** The window at `now`, without recording anything (GET /api/v1/account is free). */
  peek(userId: number, now: number): Promise<RateWindow>;
}

export interface RateDecision {
  allowed: boolean;
  /** The event recording this request, when allowed: RateLimiter.release() gives the request back. */
  event?: RateEventId;
  /** The plan's hourly cap; null when unlimited (Enterprise). */
  limit: number | null;
  /** Requests left in the window after this one; null when unlimited. */
  remaining: number | null;
  /** Unix seconds at which the oldest request in the window leaves it (now when nothing is in it). */
  resetAt: number;
  /** Whole seconds from now until resetAt (the IETF RateLimit header's `t`). */
  resetIn: number;
  /** Whole seconds until a request would be admitted; only when refused. */
  retryAfter?: number;
}

/** What the account page and GET /api/v1/account show. */
export interface Usage {
  limit: number | null;
  /** Requests in the rolling hour up to now. */
  used: number;
  remaining: number | null;
  /** When the oldest request in the window leaves it, freeing a slot; null when nothing is in it. */
  nextSlotAt: number | null;
}

/** Reset time in Unix seconds, and the seconds until then, both rounded up to whole seconds. */
function resetOf(atMs: number, nowMs: number): { resetAt: number; resetIn: number } {
  return { resetAt: Math.ceil(atMs / 1000), resetIn: Math.ceil((atMs - nowMs) / 1000) };
}

/** The answer to one request, from the window the store saw and whether it admitted the request. */
export function decide(window: Admission, limit: number | null, now: number): RateDecision {
  const event = window.admitted ? { event: window.event } : {};
  if (limit === null) return { allowed: true, ...event, limit: null, remaining: null, ...resetOf(now, now) };
  if (!window.admitted && window.oldest !== null) {
    const freedAt = window.oldest + WINDOW_MS;
    return {
      allowed: false,
      limit,
      remaining: 0,
      ...resetOf(freedAt, now),
      retryAfter: Math.max(1, Math.ceil((freedAt - now) / 1000)),
    };
  }
  return {
    allowed: true,
    ...event,
    limit,
    remaining: limit - window.used - 1,
    ...resetOf((window.oldest ?? now) + WINDOW_MS, now),
  };
}

/**
 * A window looked at, as a decision about a request that would not be counted: what the rate-limit
 * headers of an answer that spends nothing say (GET /api/v1/account, refusals).
 */
export function lookedAt(usage: Usage, now: number): RateDecision {
  return {
    allowed: usage.remaining !== 0,
    limit: usage.limit,
    remaining: usage.remaining,
    ...resetOf(usage.nextSlotAt ?? now, now),
  };
}

export class RateLimiter {
  constructor(
    private readonly store: RateEventStore,
    private readonly now: () => number,
  ) {}

  /** Checks the user's window and, when there is room, records this request in the same step. */
  async consume(userId: number, limit: number | null): Promise<RateDecision> {
    const now = this.now();
    return decide(await this.store.admit(userId, limit, now), limit, now);
  }

  /**
   * Gives back a request consume() counted (its decision's `event`), for a refusal the contract says
   * is not counted but that came only after the count (openapi.yaml, "Rate limits": `too_many_jobs`).
   */
  release(userId: number, event: RateEventId): Promise<void> {
    return this.store.release(userId, event);
  }

  /** The user's window now, recording nothing. */
  async usage(userId: number, limit: number | null): Promise<Usage> {
    const { used, oldest } = await this.store.peek(userId, this.now());
    return {
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      nextSlotAt: oldest === null ? null : oldest + WINDOW_MS,
    };
  }

  /** The user's window now, as the rate-limit headers of an answer that spends nothing show it. */
  async look(userId: number, limit: number | null): Promise<RateDecision> {
    return lookedAt(await this.usage(userId, limit), this.now());
  }

  /** Requests per `slotMs` over the last hour, oldest first (the account page's chart). */
  histogram(userId: number, slotMs: number): Promise<number[]> {
    return this.store.histogram(userId, this.now(), slotMs);
  }
}
