// Copying a SQLite data folder's users and keys into PostgreSQL, into a schema of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeAccounts } from '../../accounts/index.js';
import { missingService, TEST_DATABASE_URL, uniqueName } from '../../test-services.js';
import { openSqliteForTest } from '../contract-harness.js';
import { openDatabase } from '../sqlite/sqlite-database.js';
import { copyFromSqlite, TargetNotEmptyError } from './copy-from-sqlite.js';
import { openPostgresStores } from './index.js';
import { PgDb } from './pg-db.js';

const missing = await missingService('PostgreSQL');

describe.skipIf(missing !== undefined)('copyFromSqlite', () => {
  let dir: string;
  let schema: string;
  let pool: pg.Pool;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pdn-copy-'));
    schema = uniqueName('pdn_test');
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    await pool.query(`CREATE SCHEMA ${schema}`);
  });
  afterEach(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies users and keys with their ids, so keys work, revoked ones stay refused, new ids come after', async () => {
    const embedded = openSqliteForTest(dir);
    const ada = (await embedded.users.ensure('ada', 'business')).user;
    const bea = await embedded.users.createWithEmail('bea@example.com', 'free', 'scrypt$hash');
    const live = await embedded.keys.create(ada.id, 'live', 'laptop');
    const revoked = await embedded.keys.create(bea.id, 'test', 'old');
    await embedded.keys.revoke(revoked.record.id);
    const [users, keys] = [await embedded.users.list(), await embedded.keys.list()];
    await embedded.close();

    const source = openDatabase(dir);
    const stores = await openPostgresStores(pool);
    expect(await copyFromSqlite(source, new PgDb(pool))).toEqual({ users: 2, keys: 2 });
    const shared = composeAccounts(stores);
    expect(await shared.users.list()).toEqual(users);
    expect(await shared.keys.list()).toEqual(keys);
    expect(await shared.users.passwordHash(bea.id)).toBe('scrypt$hash');
    expect(await shared.keys.authenticate(live.key)).toMatchObject({ userId: ada.id, plan: 'business' });
    expect(await shared.keys.authenticate(revoked.key)).toBeUndefined();
    const cy = await shared.users.createWithEmail('cy@example.com', 'free', null);
    expect(cy.id).toBeGreaterThan(bea.id);

    await expect(copyFromSqlite(source, new PgDb(pool))).rejects.toThrow(TargetNotEmptyError);
    source.close();
  });
});
