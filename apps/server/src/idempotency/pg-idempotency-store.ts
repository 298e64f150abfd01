// IdempotencyStore over PostgreSQL (idempotency-store.contract.ts): a claim is one upsert
// that takes the row only when it is missing or older than `since`, so two processes cannot both
// take the same key; whoever did not gets the row as it stands.

import type { PgDb } from '../database/postgres/pg-db.js';
import { type IdempotencyRow as Row, toIdempotencyRecord } from './idempotency-rows.js';
import type { Claim, IdempotencyStore } from './idempotency-store.js';

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: PgDb) {}

  async claim(userId: number, key: string, token: string, now: number, since: number): Promise<Claim> {
    // A row released between the upsert and the read is gone: try again, it is free now.
    for (;;) {
      const taken = await this.db.rows<{ token: string }>(
        `INSERT INTO idempotency_keys (user_id, key, token, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, key) DO UPDATE
           SET token = EXCLUDED.token, fingerprint = NULL, job_id = NULL, created_at = EXCLUDED.created_at
           WHERE idempotency_keys.created_at <= $5
         RETURNING token`,
        [userId, key, token, now, since],
      );
      if (taken.length > 0) return { first: true, token };
      const [row] = await this.db.rows<Row>(
        'SELECT * FROM idempotency_keys WHERE user_id = $1 AND key = $2',
        [userId, key],
      );
      if (row) return { first: false, record: toIdempotencyRecord(row) };
    }
  }

  async bind(userId: number, key: string, token: string, fingerprint: string, jobId: string) {
    await this.db.changes(
      'UPDATE idempotency_keys SET fingerprint = $1, job_id = $2 WHERE user_id = $3 AND key = $4 AND token = $5',
      [fingerprint, jobId, userId, key, token],
    );
  }

  async release(userId: number, key: string, token: string) {
    await this.db.changes('DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND token = $3', [
      userId,
      key,
      token,
    ]);
  }

  async forget(before: number) {
    await this.db.changes('DELETE FROM idempotency_keys WHERE created_at <= $1', [before]);
  }
}
