// PgDb.lockedTransaction on the machine's PostgreSQL: one user's burst waits for its lock in this
// process, not in the pool, so the pool stays free for everyone else and nobody times out waiting
// for a connection.
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { missingService, TEST_DATABASE_URL } from '../../test-services.js';
import { PgDb } from './pg-db.js';

const missing = await missingService('PostgreSQL');
// Advisory locks are the whole database's, not a schema's: keys of this run's own, so another run of
// this file on the machine's PostgreSQL never waits on these locks, nor this one on its.
const LOCK = { namespace: 0x70646e74, key: randomInt(2 ** 30) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missing !== undefined)('PgDb.lockedTransaction', () => {
  // Two connections, and a wait for one (1 s: room for a first connection on a busy machine) far
  // shorter than a burst on one lock takes to go through (60 x 30 ms).
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2, connectionTimeoutMillis: 1000 });
  const db = new PgDb(pool);
  afterAll(() => pool.end());

  // 60 transactions in turn, each sleeping 30 ms in PostgreSQL: 1.8 s at the least, more on a loaded
  // machine, too close to vitest's default 5 s.
  it('runs a burst of 60 transactions on one lock one after another without exhausting the pool', {
    timeout: 60_000,
  }, async () => {
    const order: number[] = [];
    let inside = 0;
    let mostInside = 0;
    const burst = Array.from({ length: 60 }, (_, i) =>
      db.lockedTransaction(LOCK, async (sql) => {
        inside += 1;
        mostInside = Math.max(mostInside, inside);
        await sql.rows('SELECT pg_sleep(0.03)');
        order.push(i);
        inside -= 1;
        return i;
      }),
    );
    // Another lock and plain queries are served meanwhile: the burst holds one connection at most.
    const other = await db.lockedTransaction({ ...LOCK, key: LOCK.key + 1 }, (sql) =>
      sql.rows<{ n: number }>('SELECT 2 AS n'),
    );
    expect(other).toEqual([{ n: 2 }]);
    expect(await Promise.all(burst)).toEqual(order.slice().sort((a, b) => a - b));
    expect(order).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(mostInside).toBe(1);
  });

  it('lets the next transaction on a lock run after one that threw', async () => {
    const failed = db.lockedTransaction(LOCK, async () => {
      await sleep(10);
      throw new Error('refused');
    });
    const next = db.lockedTransaction(LOCK, (sql) => sql.rows<{ n: number }>('SELECT 7 AS n'));
    await expect(failed).rejects.toThrow('refused');
    expect(await next).toEqual([{ n: 7 }]);
  });
});
