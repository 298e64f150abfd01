// KnownAddressStore over SQLite (throttle.contract.ts): one row per account and address.

import type { Db } from '../../database/sqlite/sqlite-database.js';
import type { KnownAddressStore } from '../throttle.js';

export class SqliteKnownAddresses implements KnownAddressStore {
  constructor(private readonly db: Db) {}

  async remember(userId: number, address: string, at: number) {
    this.db
      .prepare(
        `INSERT INTO known_addresses (user_id, address, last_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id, address) DO UPDATE SET last_at = MAX(last_at, excluded.last_at)`,
      )
      .run(userId, address, at);
  }

  async knows(userId: number, address: string, since: number) {
    return (
      this.db
        .prepare('SELECT 1 FROM known_addresses WHERE user_id = ? AND address = ? AND last_at > ?')
        .get(userId, address, since) !== undefined
    );
  }

  async forget(before: number) {
    this.db.prepare('DELETE FROM known_addresses WHERE last_at <= ?').run(before);
  }
}
