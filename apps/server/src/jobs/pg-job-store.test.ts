// What the PostgreSQL job store adds to the contract (postgres.test.ts runs that): processes on several
// pools claiming at once take every job exactly once, whatever their data folders (the
// inputs are in the bucket, so every process feeds BullMQ from one queue).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStores } from '../database/postgres/index.js';
import { missingService, TEST_DATABASE_URL, uniqueName } from '../test-services.js';
import { claimNext } from './fair-share.js';
import type { JobStore } from './job-store.js';

const missing = await missingService('PostgreSQL');

describe.skipIf(missing !== undefined)('PostgreSQL jobs between processes', () => {
  const schema = uniqueName('pdn_test');
  const pools: pg.Pool[] = [];
  let userId = 0;
  let made = 0;

  /** The job store of another process, on a pool of its own. */
  const processOf = async (): Promise<JobStore> => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    pools.push(pool);
    return (await openPostgresStores(pool)).jobs;
  };
  const submit = (jobs: JobStore) =>
    jobs.create(
      { id: `job_${++made}`, userId, operation: 'compress', mode: 'async', input: { files: [], params: {} } },
      made,
    );

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    await processOf();
    const { rows } = await (pools[0] as pg.Pool).query<{ id: number }>(
      `INSERT INTO users (name, plan, created_at) VALUES ('ada', 'premium', 0) RETURNING id`,
    );
    userId = rows[0]?.id ?? 0;
  });
  afterAll(async () => {
    await pools[0]?.query(`DROP SCHEMA ${schema} CASCADE`);
    for (const pool of pools) await pool.end();
  });

  it('hands each of 40 jobs to exactly one of four processes claiming at once', async () => {
    const claimers = await Promise.all([1, 2, 3, 4].map(() => processOf()));
    const submitted = [];
    for (let i = 0; i < 40; i += 1) submitted.push((await submit(claimers[0] as JobStore)).id);
    const claimed = await Promise.all(
      claimers.map(async (jobs) => {
        const mine: string[] = [];
        for (let job = await claimNext(jobs, 100, 4); job; job = await claimNext(jobs, 100, 4))
          mine.push(job.id);
        return mine;
      }),
    );
    expect(claimed.flat().sort()).toEqual(submitted.sort());
  });
});
