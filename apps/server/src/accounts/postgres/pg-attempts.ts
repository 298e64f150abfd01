// AttemptStore over PostgreSQL (throttle.contract.ts).
import type { AttemptStore } from '../throttle.js';
import { num, type PgDb } from './pg-db.js';

export class PgAttempts implements AttemptStore {
  constructor(private readonly db: PgDb) {}

  async record(bucket: string, at: number) {
    await this.db.changes('INSERT INTO attempts (bucket, at) VALUES ($1, $2)', [bucket, at]);
  }

  async count(bucket: string, since: number) {
    // Attempts out of the window count for nothing any more: drop them as they are met.
    await this.db.changes('DELETE FROM attempts WHERE bucket = $1 AND at <= $2', [bucket, since]);
    const [row] = await this.db.rows<{ count: string; oldest: string | null }>(
      'SELECT COUNT(*) AS count, MIN(at) AS oldest FROM attempts WHERE bucket = $1',
      [bucket],
    );
    return { count: num(row?.count ?? 0), oldest: num(row?.oldest ?? null) };
  }

  async clear(bucket: string) {
    await this.db.changes('DELETE FROM attempts WHERE bucket = $1', [bucket]);
  }

  async forget(before: number) {
    await this.db.changes('DELETE FROM attempts WHERE at <= $1', [before]);
  }
}
