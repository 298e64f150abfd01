// IdempotencyStore over SQLite (idempotency-store.contract.ts): one row per (user, key).
// better-sqlite3 is synchronous, so a claim is one immediate transaction: two processes cannot both
// take the same key.

import type { Db } from '../database/sqlite/sqlite-database.js';
import { type IdempotencyRow as Row, toIdempotencyRecord } from './idempotency-rows.js';
import type { Claim, IdempotencyStore } from './idempotency-store.js';

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly claimTx: (userId: number, key: string, token: string, now: number, since: number) => Claim;

  constructor(private readonly db: Db) {
    const get = db.prepare('SELECT * FROM idempotency_keys WHERE user_id = ? AND key = ?');
    const put = db.prepare(
      `INSERT OR REPLACE INTO idempotency_keys (user_id, key, token, fingerprint, job_id, created_at)
       VALUES (?, ?, ?, NULL, NULL, ?)`,
    );
    const tx = db.transaction(
      (userId: number, key: string, token: string, now: number, since: number): Claim => {
        const row = get.get(userId, key) as Row | undefined;
        const record = row && toIdempotencyRecord(row);
        if (record && record.createdAt > since) return { first: false, record };
        put.run(userId, key, token, now);
        return { first: true, token };
      },
    );
    this.claimTx = (...args) => tx.immediate(...args);
  }

  async claim(userId: number, key: string, token: string, now: number, since: number) {
    return this.claimTx(userId, key, token, now, since);
  }

  async bind(userId: number, key: string, token: string, fingerprint: string, jobId: string) {
    this.db
      .prepare(
        'UPDATE idempotency_keys SET fingerprint = ?, job_id = ? WHERE user_id = ? AND key = ? AND token = ?',
      )
      .run(fingerprint, jobId, userId, key, token);
  }

  async release(userId: number, key: string, token: string) {
    this.db
      .prepare('DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND token = ?')
      .run(userId, key, token);
  }

  async forget(before: number) {
    this.db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?').run(before);
  }
}
