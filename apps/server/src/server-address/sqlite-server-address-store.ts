// ServerAddressStore over SQLite (server-address.contract.ts): one row.
import type { Db } from '../database/sqlite/sqlite-database.js';
import type { ServerAddress, ServerAddressStore } from './server-address.js';

export class SqliteServerAddressStore implements ServerAddressStore {
  constructor(private readonly db: Db) {}

  async record(address: ServerAddress) {
    this.db
      .prepare(
        `INSERT INTO server_address (id, listening, public_url, recorded_at) VALUES (1, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET listening = excluded.listening, public_url = excluded.public_url,
           recorded_at = excluded.recorded_at`,
      )
      .run(address.listening, address.publicUrl, address.recordedAt);
  }

  async recorded() {
    const row = this.db
      .prepare('SELECT listening, public_url, recorded_at FROM server_address WHERE id = 1')
      .get() as { listening: string; public_url: string | null; recorded_at: number } | undefined;
    return row === undefined
      ? undefined
      : { listening: row.listening, publicUrl: row.public_url, recordedAt: row.recorded_at };
  }
}
