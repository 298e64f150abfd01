// OutputRows over SQLite (output-rows.contract.ts): table `small_outputs` of the data folder's
// database, the bytes as a BLOB. The embedded server keeps its outputs in the outputs folder; this
// store keeps the two databases' schemas and stores alike.
import type { Db } from '../database/sqlite/sqlite-database.js';
import type { OutputRow, OutputRows } from './output-rows.js';

interface Row {
  id: string;
  filename: string;
  size: number;
  expires_at: number;
  body: Buffer;
}

/** Stores `row`, replacing what its id held; also what the job store runs in the transaction ending a job. */
export function keepOutputRow(db: Db, { meta, body }: OutputRow): void {
  db.prepare(
    `INSERT INTO small_outputs (id, filename, size, expires_at, body) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET filename = excluded.filename, size = excluded.size,
       expires_at = excluded.expires_at, body = excluded.body`,
  ).run(meta.id, meta.filename, meta.size, meta.expiresAt, body);
}

export class SqliteOutputRows implements OutputRows {
  constructor(private readonly db: Db) {}

  async put(row: OutputRow): Promise<void> {
    keepOutputRow(this.db, row);
  }

  async get(id: string): Promise<OutputRow | undefined> {
    const row = this.db
      .prepare('SELECT id, filename, size, expires_at, body FROM small_outputs WHERE id = ?')
      .get(id) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      meta: { id: row.id, filename: row.filename, size: row.size, expiresAt: row.expires_at },
      body: row.body,
    };
  }

  async forget(id: string): Promise<void> {
    this.db.prepare('DELETE FROM small_outputs WHERE id = ?').run(id);
  }

  async sweep(now: number): Promise<number> {
    return this.db.prepare('DELETE FROM small_outputs WHERE expires_at <= ?').run(now).changes;
  }
}
