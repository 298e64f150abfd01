// OutputRows over PostgreSQL (output-rows.contract.ts): table `small_outputs`, the bytes as BYTEA.
// Loaded only with the shared backends (database/postgres/index.ts).
import { num, type PgDb } from '../database/postgres/pg-db.js';
import type { OutputRow, OutputRows } from './output-rows.js';

interface Row {
  id: string;
  filename: string;
  size: number;
  expires_at: string;
  body: Buffer;
}

export class PgOutputRows implements OutputRows {
  constructor(private readonly db: PgDb) {}

  async put({ meta, body }: OutputRow): Promise<void> {
    await this.db.changes(
      `INSERT INTO small_outputs (id, filename, size, expires_at, body) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET filename = EXCLUDED.filename, size = EXCLUDED.size,
         expires_at = EXCLUDED.expires_at, body = EXCLUDED.body`,
      [meta.id, meta.filename, meta.size, meta.expiresAt, body],
    );
  }

  async get(id: string): Promise<OutputRow | undefined> {
    const [row] = await this.db.rows<Row>(
      'SELECT id, filename, size, expires_at, body FROM small_outputs WHERE id = $1',
      [id],
    );
    if (row === undefined) return undefined;
    const meta = { id: row.id, filename: row.filename, size: row.size, expiresAt: num(row.expires_at) };
    return { meta, body: row.body };
  }

  async forget(id: string): Promise<void> {
    await this.db.changes('DELETE FROM small_outputs WHERE id = $1', [id]);
  }

  sweep(now: number): Promise<number> {
    return this.db.changes('DELETE FROM small_outputs WHERE expires_at <= $1', [now]);
  }
}
