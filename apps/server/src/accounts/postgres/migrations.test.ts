// Processes starting together on a new database apply each migration once (the advisory lock), and a
// later start applies nothing again.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingService, TEST_DATABASE_URL, uniqueName } from '../../test-services.js';
import { migrate } from './migrations.js';
import { PgDb } from './pg-db.js';

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
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
  });
});
