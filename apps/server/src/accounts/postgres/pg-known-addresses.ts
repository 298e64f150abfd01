// KnownAddressStore over PostgreSQL (throttle.contract.ts): one row per account and address.

import type { PgDb } from '../../database/postgres/pg-db.js';
import type { KnownAddressStore } from '../throttle.js';

export class PgKnownAddresses implements KnownAddressStore {
  constructor(private readonly db: PgDb) {}

  async remember(userId: number, address: string, at: number) {
    await this.db.changes(
      `INSERT INTO known_addresses (user_id, address, last_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, address) DO UPDATE SET last_at = GREATEST(known_addresses.last_at, excluded.last_at)`,
      [userId, address, at],
    );
  }

  async knows(userId: number, address: string, since: number) {
    const rows = await this.db.rows(
      'SELECT 1 FROM known_addresses WHERE user_id = $1 AND address = $2 AND last_at > $3',
      [userId, address, since],
    );
    return rows.length > 0;
  }

  async forget(before: number) {
    await this.db.changes('DELETE FROM known_addresses WHERE last_at <= $1', [before]);
  }
}
