// AttemptStore over SQLite (throttle.contract.ts). reserve() counts and records in ONE immediate
// transaction, which takes the write lock before reading, so no other reservation, even from another
// process, can read the same counts before this one's insert. An attempt is named by its bucket and
// time: rows of one bucket and millisecond are interchangeable, so release() deletes one of them.

import type { Db } from '../../database/sqlite/sqlite-database.js';
import type { AttemptStore, BucketCount, BucketWindow } from '../throttle.js';

export class SqliteAttempts implements AttemptStore {
  private readonly reserveTx: (
    buckets: readonly BucketWindow[],
    at: number,
  ) => { reserved: boolean; counts: BucketCount[] };

  constructor(private readonly db: Db) {
    const record = db.prepare('INSERT INTO attempts (bucket, at) VALUES (?, ?)');
    const tx = db.transaction((buckets: readonly BucketWindow[], at: number) => {
      const counts = buckets.map(({ bucket, since }) => this.countNow(bucket, since));
      const reserved = buckets.every(({ limit }, index) => (counts[index]?.count ?? 0) < limit);
      if (reserved) for (const { bucket } of buckets) record.run(bucket, at);
      return { reserved, counts };
    });
    this.reserveTx = (buckets, at) => tx.immediate(buckets, at);
  }

  private countNow(bucket: string, since: number): BucketCount {
    // Attempts out of the window count for nothing any more: drop them as they are met.
    this.db.prepare('DELETE FROM attempts WHERE bucket = ? AND at <= ?').run(bucket, since);
    return this.db
      .prepare('SELECT COUNT(*) AS count, MIN(at) AS oldest FROM attempts WHERE bucket = ?')
      .get(bucket) as BucketCount;
  }

  async reserve(buckets: readonly BucketWindow[], at: number) {
    return this.reserveTx(buckets, at);
  }

  async release(buckets: readonly string[], at: number) {
    const forgive = this.db.prepare(
      'DELETE FROM attempts WHERE rowid IN (SELECT rowid FROM attempts WHERE bucket = ? AND at = ? LIMIT 1)',
    );
    this.db.transaction(() => {
      for (const bucket of buckets) forgive.run(bucket, at);
    })();
  }

  async count(bucket: string, since: number) {
    return this.countNow(bucket, since);
  }

  async clear(bucket: string) {
    this.db.prepare('DELETE FROM attempts WHERE bucket = ?').run(bucket);
  }

  async forget(before: number) {
    this.db.prepare('DELETE FROM attempts WHERE at <= ?').run(before);
  }
}
