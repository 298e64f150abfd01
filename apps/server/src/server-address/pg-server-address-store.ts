// ServerAddressStore over PostgreSQL (server-address.contract.ts): one row, which every
// API process of a deployment records as it starts; the latest is where an admin's link points.
import { num, type PgDb } from '../database/postgres/pg-db.js';
import type { ServerAddress, ServerAddressStore } from './server-address.js';

export class PgServerAddressStore implements ServerAddressStore {
  constructor(private readonly db: PgDb) {}

  async record(address: ServerAddress) {
    await this.db.changes(
      `INSERT INTO server_address (id, listening, public_url, recorded_at) VALUES (1, $1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET listening = excluded.listening, public_url = excluded.public_url,
         recorded_at = excluded.recorded_at`,
      [address.listening, address.publicUrl, address.recordedAt],
    );
  }

  async recorded() {
    const [row] = await this.db.rows<{ listening: string; public_url: string | null; recorded_at: string }>(
      'SELECT listening, public_url, recorded_at FROM server_address WHERE id = 1',
    );
    return row === undefined
      ? undefined
      : { listening: row.listening, publicUrl: row.public_url, recordedAt: num(row.recorded_at) };
  }
}
