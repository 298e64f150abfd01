// AttemptStore over SQLite (throttle.contract.ts).
import type { AttemptStore } from '../throttle.js';
import type { Db } from './database.js';

export class SqliteAttempts implements AttemptStore {
  constructor(private readonly db: Db) {}

  async record(bucket: string, at: number) {
    this.db.prepare('INSERT INTO attempts (bucket, at) VALUES (?, ?)').run(bucket, at);
  }

  async count(bucket: string, since: number) {
    // Attempts out of the window count for nothing any more: drop them as they are met.
    this.db.prepare('DELETE FROM attempts WHERE bucket = ? AND at <= ?').run(bucket, since);
    return this.db
      .prepare('SELECT COUNT(*) AS count, MIN(at) AS oldest FROM attempts WHERE bucket = ?')
      .get(bucket) as { count: number; oldest: number | null };
  }

  async clear(bucket: string) {
    this.db.prepare('DELETE FROM attempts WHERE bucket = ?').run(bucket);
  }

  async forget(before: number) {
    this.db.prepare('DELETE FROM attempts WHERE at <= ?').run(before);
  }
}
