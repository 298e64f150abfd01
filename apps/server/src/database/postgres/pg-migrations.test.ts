// Processes starting together on a new database apply each migration once (the advisory lock), and a
// later start applies nothing again. Webhook deliveries made before they named their receiving host
// are given it from their URL, and jobs made before queue times their creation as their queue time.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobFromRow } from '../../jobs/job-rows.js';
import { missingService, TEST_DATABASE_URL, uniqueName } from '../../test-services.js';
import { PgDb } from './pg-db.js';
import { migrate } from './pg-migrations.js';

const missing = await missingService('PostgreSQL');

describe.skipIf(missing !== undefined)('PostgreSQL migrations', () => {
  const schema = uniqueName('pdn_test');
  const pools: pg.Pool[] = [];
  const pool = () => {
    const made = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    pools.push(made);
    return made;
  };
  beforeAll(async () => {
    await pool().query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await pools[0]?.query(`DROP SCHEMA ${schema} CASCADE`);
    for (const made of pools) await made.end();
  });

  it('applies each migration once when five processes start at the same moment', async () => {
    await Promise.all(Array.from({ length: 5 }, () => migrate(new PgDb(pool()))));
    await migrate(new PgDb(pool()));
    const { rows } = await pool().query('SELECT version FROM pdn_migrations ORDER BY version');
    expect(rows.map((row: { version: number }) => row.version)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    ]);
  });

  it('gives the deliveries made before receiving hosts the host of their URL', async () => {
    const sql = pool();
    await sql.query("INSERT INTO users (name, plan, created_at) VALUES ('ada', 'premium', 0)");
    // As a server before receiving hosts left it: that migration undone, and the ones after it.
    await sql.query('ALTER TABLE webhook_deliveries DROP COLUMN host');
    await sql.query('ALTER TABLE jobs DROP COLUMN queued_at');
    await sql.query('ALTER TABLE api_keys DROP COLUMN expires_at');
    await sql.query('DROP TABLE webhook_attempts; DROP INDEX webhook_deliveries_user');
    await sql.query('DROP TABLE device_logins');
    await sql.query('DROP TABLE small_outputs');
    await sql.query('ALTER TABLE jobs DROP COLUMN inline_inputs');
    await sql.query('DELETE FROM pdn_migrations WHERE version >= 8');
    await sql.query(
      `INSERT INTO webhook_deliveries (job_id, user_id, url, state, attempts, created_at)
       SELECT 'job_1', id, 'https://hooks.example:8443/in?x=1', 'waiting', 0, 0 FROM users`,
    );
    await migrate(new PgDb(sql));
    const { rows } = await sql.query('SELECT host FROM webhook_deliveries');
    expect(rows).toEqual([{ host: 'hooks.example:8443' }]);
  });

  it('reads a job stored without a queue time, before or by an older process, as queued at its creation', async () => {
    const sql = pool();
    await sql.query("INSERT INTO users (name, plan, created_at) VALUES ('bob', 'premium', 0)");
    // As a server before queue times left it: that migration undone, and the one after it.
    await sql.query('ALTER TABLE jobs DROP COLUMN queued_at');
    await sql.query('ALTER TABLE api_keys DROP COLUMN expires_at');
    await sql.query('DROP TABLE webhook_attempts; DROP INDEX webhook_deliveries_user');
    await sql.query('DROP TABLE device_logins');
    await sql.query('DROP TABLE small_outputs');
    await sql.query('ALTER TABLE jobs DROP COLUMN inline_inputs');
    await sql.query('DELETE FROM pdn_migrations WHERE version >= 9');
    const storeAsOld = (id: string) =>
      sql.query(
        `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at)
         SELECT $1, id, 'compress', 'async', 'queued', '{}', 5000 FROM users WHERE name = 'bob'`,
        [id],
      );
    await storeAsOld('job_before');
    await migrate(new PgDb(sql));
    // An API process of the version before, during a rolling upgrade, names the columns it knew.
    await storeAsOld('job_beside');
    const { rows } = await sql.query('SELECT * FROM jobs ORDER BY id');
    expect(rows.map((row) => jobFromRow(row))).toMatchObject([
      { id: 'job_before', createdAt: 5000, queuedAt: 5000 },
      { id: 'job_beside', createdAt: 5000, queuedAt: 5000 },
    ]);
  });
});
