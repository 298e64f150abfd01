// RateEventStore over PostgreSQL (rate-limiter.contract.ts), for a deployment's accounts database when
// the limits are not in Redis, and the contract's reference for a second SQL store. admit() runs in a
// transaction holding an advisory lock on the user (STYLE.md 15), so concurrent requests of one user,
// from any process, count and record one after another while other users' requests go on in parallel.
// An event is named by its time: a user's rows of one millisecond are interchangeable, so release()
// deletes one of them, under the same lock, so two releases of one millisecond delete two rows.

import { num, type PgDb, type Sql } from '../../database/postgres/pg-db.js';
import { type Admission, type RateEventStore, type RateWindow, WINDOW_MS } from '../rate-limiter.js';

/** The advisory lock of a user's rate window: namespace "pdnr", the user id as key. */
const rateLock = (userId: number) => ({ namespace: 0x70646e72, key: userId });

async function windowOf(sql: Sql, userId: number, now: number): Promise<RateWindow> {
  const [row] = await sql.rows<{ used: string; oldest: string | null }>(
    'SELECT COUNT(*) AS used, MIN(at) AS oldest FROM rate_events WHERE user_id = $1 AND at > $2',
    [userId, now - WINDOW_MS],
  );
  return { used: num(row?.used ?? 0), oldest: num(row?.oldest ?? null) };
}

export class PgRateEvents implements RateEventStore {
  constructor(private readonly db: PgDb) {}

  admit(userId: number, limit: number | null, now: number) {
    return this.db.lockedTransaction(rateLock(userId), async (sql): Promise<Admission> => {
      await sql.changes('DELETE FROM rate_events WHERE user_id = $1 AND at <= $2', [userId, now - WINDOW_MS]);
      const window = await windowOf(sql, userId, now);
      if (limit !== null && window.used >= limit) return { ...window, admitted: false };
      await sql.changes('INSERT INTO rate_events (user_id, at) VALUES ($1, $2)', [userId, now]);
      return { ...window, admitted: true, event: String(now) };
    });
  }

  release(userId: number, event: string) {
    return this.db.lockedTransaction(rateLock(userId), async (sql) => {
      await sql.changes(
        'DELETE FROM rate_events WHERE ctid IN (SELECT ctid FROM rate_events WHERE user_id = $1 AND at = $2 LIMIT 1)',
        [userId, Number(event)],
      );
    });
  }

  peek(userId: number, now: number) {
    return windowOf(this.db, userId, now);
  }

  async histogram(userId: number, now: number, slotMs: number) {
    const slots = Math.ceil(WINDOW_MS / slotMs);
    const start = now - slots * slotMs;
    const counts = new Array<number>(slots).fill(0);
    const rows = await this.db.rows<{ slot: string; n: string }>(
      `SELECT (at - $1 - 1) / $2 AS slot, COUNT(*) AS n FROM rate_events
        WHERE user_id = $3 AND at > $4 GROUP BY slot`,
      [start, slotMs, userId, now - WINDOW_MS],
    );
    for (const row of rows) {
      const slot = num(row.slot);
      if (slot >= 0 && slot < slots) counts[slot] = num(row.n);
    }
    return counts;
  }
}
