// AttemptStore over PostgreSQL (throttle.contract.ts). reserve() runs in a transaction that first
// takes an advisory lock per bucket (STYLE.md 15), so reservations touching a bucket, from any
// process, count and record one after another, while those of other buckets go on in parallel. The
// locks are taken in ascending key order, so two reservations sharing buckets never wait on each other
// in a cycle. An attempt is named by its bucket and time, as in sqlite-attempts.ts.
import { createHash } from 'node:crypto';
import { num, type PgDb, type Sql } from '../../database/postgres/pg-db.js';
import type { AttemptStore, BucketCount, BucketWindow } from '../throttle.js';

/** Namespace of the throttle's advisory locks: "pdna". */
const ATTEMPT_LOCKS = 0x70646e61;

/** A bucket's lock key: 32 bits of its name's hash (buckets that share one only wait a little more). */
function lockKey(bucket: string): number {
  return createHash('sha256').update(bucket).digest().readInt32BE(0);
}

async function countNow(sql: Sql, bucket: string, since: number): Promise<BucketCount> {
  // Attempts out of the window count for nothing any more: drop them as they are met.
  await sql.changes('DELETE FROM attempts WHERE bucket = $1 AND at <= $2', [bucket, since]);
  const [row] = await sql.rows<{ count: string; oldest: string | null }>(
    'SELECT COUNT(*) AS count, MIN(at) AS oldest FROM attempts WHERE bucket = $1',
    [bucket],
  );
  return { count: num(row?.count ?? 0), oldest: num(row?.oldest ?? null) };
}

export class PgAttempts implements AttemptStore {
  constructor(private readonly db: PgDb) {}

  reserve(buckets: readonly BucketWindow[], at: number) {
    return this.db.transaction(async (sql) => {
      const keys = [...new Set(buckets.map(({ bucket }) => lockKey(bucket)))].sort((a, b) => a - b);
      for (const key of keys) await sql.rows('SELECT pg_advisory_xact_lock($1, $2)', [ATTEMPT_LOCKS, key]);
      const counts: BucketCount[] = [];
      for (const { bucket, since } of buckets) counts.push(await countNow(sql, bucket, since));
      const reserved = buckets.every(({ limit }, index) => (counts[index]?.count ?? 0) < limit);
      if (reserved)
        for (const { bucket } of buckets)
          await sql.changes('INSERT INTO attempts (bucket, at) VALUES ($1, $2)', [bucket, at]);
      return { reserved, counts };
    });
  }

  async release(buckets: readonly string[], at: number) {
    for (const bucket of buckets)
      await this.db.changes(
        'DELETE FROM attempts WHERE ctid IN (SELECT ctid FROM attempts WHERE bucket = $1 AND at = $2 LIMIT 1)',
        [bucket, at],
      );
  }

  count(bucket: string, since: number) {
    return countNow(this.db, bucket, since);
  }

  async clear(bucket: string) {
    await this.db.changes('DELETE FROM attempts WHERE bucket = $1', [bucket]);
  }

  async forget(before: number) {
    await this.db.changes('DELETE FROM attempts WHERE at <= $1', [before]);
  }
}
