// RateEventStore over SQLite (rate-limiter.contract.ts): each admitted request is one row of
// `rate_events`. admit() counts and records in ONE immediate transaction, which takes the write lock
// before reading, so the count cannot go stale before the insert, even across processes. An event is
// named by its time, as in pg-rate-events.ts: a user's rows of one millisecond are interchangeable, so
// release() deletes one of them (not by rowid, which SQLite reuses once the newest row is gone).

import type { Db } from '../../database/sqlite/sqlite-database.js';
import { type Admission, type RateEventStore, type RateWindow, WINDOW_MS } from '../rate-limiter.js';

export class SqliteRateEvents implements RateEventStore {
  private readonly admitTx: (userId: number, limit: number | null, now: number) => Admission;

  constructor(private readonly db: Db) {
    const prune = db.prepare('DELETE FROM rate_events WHERE user_id = ? AND at <= ?');
    const record = db.prepare('INSERT INTO rate_events (user_id, at) VALUES (?, ?)');
    const tx = db.transaction((userId: number, limit: number | null, now: number): Admission => {
      prune.run(userId, now - WINDOW_MS);
      const window = this.window(userId, now);
      if (limit !== null && window.used >= limit) return { ...window, admitted: false };
      record.run(userId, now);
      return { ...window, admitted: true, event: String(now) };
    });
    this.admitTx = (userId, limit, now) => tx.immediate(userId, limit, now);
  }

  private window(userId: number, now: number): RateWindow {
    return this.db
      .prepare('SELECT COUNT(*) AS used, MIN(at) AS oldest FROM rate_events WHERE user_id = ? AND at > ?')
      .get(userId, now - WINDOW_MS) as RateWindow;
  }

  async admit(userId: number, limit: number | null, now: number) {
    return this.admitTx(userId, limit, now);
  }

  async release(userId: number, event: string) {
    this.db
      .prepare(
        'DELETE FROM rate_events WHERE rowid IN (SELECT rowid FROM rate_events WHERE user_id = ? AND at = ? LIMIT 1)',
      )
      .run(userId, Number(event));
  }

  async peek(userId: number, now: number) {
    return this.window(userId, now);
  }

  async histogram(userId: number, now: number, slotMs: number) {
    const slots = Math.ceil(WINDOW_MS / slotMs);
    const start = now - slots * slotMs;
    const counts = new Array<number>(slots).fill(0);
    const rows = this.db
      .prepare(
        `SELECT CAST((at - @start - 1) / @slot AS INTEGER) AS slot, COUNT(*) AS n FROM rate_events
          WHERE user_id = @user AND at > @from GROUP BY slot`,
      )
      .all({ start, slot: slotMs, user: userId, from: now - WINDOW_MS }) as { slot: number; n: number }[];
    for (const { slot, n } of rows) if (slot >= 0 && slot < slots) counts[slot] = n;
    return counts;
  }
}
