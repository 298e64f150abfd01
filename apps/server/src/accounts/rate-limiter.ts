// Per-user rate limiting over an exact rolling one-hour window (v1 specification, Limits; issue #2).
// Each admitted request is one row in `rate_events`; a request is admitted when fewer than `limit`
// rows are younger than an hour. Counting and recording happen in ONE immediate transaction, so
// concurrent requests (even from another process on the same database) cannot both take the last
// slot: 50 simultaneous requests from a fresh Free user admit exactly 10. Refused requests are not
// recorded, so hammering a limit does not push the reset further away. The log lives in SQLite, so a
// restart forgets nothing.
import type { Db } from './database.js';

export const WINDOW_MS = 60 * 60 * 1000;

export interface RateDecision {
  allowed: boolean;
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

/** Reset time in Unix seconds, and the seconds until then, both rounded up to whole seconds. */
function resetOf(atMs: number, nowMs: number): { resetAt: number; resetIn: number } {
  return { resetAt: Math.ceil(atMs / 1000), resetIn: Math.ceil((atMs - nowMs) / 1000) };
}

export class RateLimiter {
  private readonly consumeTx: (userId: number, limit: number, now: number) => RateDecision;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    const prune = db.prepare('DELETE FROM rate_events WHERE user_id = ? AND at <= ?');
    const window = db.prepare(
      'SELECT COUNT(*) AS used, MIN(at) AS oldest FROM rate_events WHERE user_id = ? AND at > ?',
    );
    const record = db.prepare('INSERT INTO rate_events (user_id, at) VALUES (?, ?)');
    const tx = db.transaction((userId: number, limit: number, now: number): RateDecision => {
      const windowStart = now - WINDOW_MS;
      prune.run(userId, windowStart);
      const { used, oldest } = window.get(userId, windowStart) as { used: number; oldest: number | null };
      if (used >= limit && oldest !== null) {
        const freedAt = oldest + WINDOW_MS;
        return {
          allowed: false,
          limit,
          remaining: 0,
          ...resetOf(freedAt, now),
          retryAfter: Math.max(1, Math.ceil((freedAt - now) / 1000)),
        };
      }
      record.run(userId, now);
      return {
        allowed: true,
        limit,
        remaining: limit - used - 1,
        ...resetOf((oldest ?? now) + WINDOW_MS, now),
      };
    });
    // IMMEDIATE takes the write lock before reading, so the count cannot go stale before the insert.
    this.consumeTx = (userId, limit, now) => tx.immediate(userId, limit, now);
  }

  /** Checks the user's window and, when there is room, records this request in the same transaction. */
  consume(userId: number, limit: number | null): RateDecision {
    const now = this.now();
    if (limit === null) {
      return { allowed: true, limit: null, remaining: null, ...resetOf(now, now) };
    }
    return this.consumeTx(userId, limit, now);
  }
}
