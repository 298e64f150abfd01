// A database made before accounts had emails (schema 1: named users, no email) opens under today's schema
// with its users, keys and rate events intact; its users keep working and can be given an email. Webhook
// deliveries made before they named their receiving host are given it from their URL, and jobs made
// before queue times their creation as the time they were queued.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { hashKey } from '../../accounts/key-format.js';
import { openSqliteForTest } from '../contract-harness.js';
import { openDatabase } from './sqlite-database.js';

const dir = mkdtempSync(join(tmpdir(), 'pdn-migration-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const KEY = `pdn_live_${'ab'.repeat(16)}`;

/** Schema 1 exactly as the server wrote it before accounts had emails, with one user, key and rate event. */
function writeVersion1Database(): void {
  const db = new Database(join(dir, 'pdn.sqlite'));
  db.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
             plan TEXT NOT NULL CHECK (plan IN ('free', 'premium', 'business', 'enterprise')),
             created_at INTEGER NOT NULL);
           CREATE TABLE api_keys (id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id),
             kind TEXT NOT NULL CHECK (kind IN ('live', 'test')), hash TEXT NOT NULL UNIQUE,
             prefix TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER, revoked_at INTEGER);
           CREATE INDEX api_keys_user ON api_keys (user_id);
           CREATE TABLE rate_events (user_id INTEGER NOT NULL REFERENCES users (id), at INTEGER NOT NULL);
           CREATE INDEX rate_events_user_at ON rate_events (user_id, at);`);
  db.prepare("INSERT INTO users VALUES (7, 'ada', 'premium', 1000)").run();
  db.prepare(
    "INSERT INTO api_keys VALUES ('key_000000000001', 7, 'live', ?, 'pdn_live_abab…', 1000, NULL, NULL)",
  ).run(hashKey(KEY));
  db.prepare('INSERT INTO rate_events VALUES (7, ?)').run(Date.now());
  db.pragma('user_version = 1');
  db.close();
}

it('brings a version 1 database up to date, keeping its users, keys and usage', async () => {
  writeVersion1Database();
  const accounts = openSqliteForTest(dir);
  try {
    expect(await accounts.keys.authenticate(KEY)).toMatchObject({ userId: 7, owner: 'ada', plan: 'premium' });
    expect(await accounts.keys.list(7)).toMatchObject([{ id: 'key_000000000001', name: '', owner: 'ada' }]);
    expect((await accounts.rateLimiter.usage(7, 1000)).used).toBe(1);
    expect(await accounts.users.setEmail(7, 'ada@example.com')).toBe(true);
    expect(await accounts.users.byEmail('ada@example.com')).toMatchObject({ id: 7, name: 'ada' });
    const { record } = await accounts.keys.create(7, 'test', 'after');
    expect(record.owner).toBe('ada');
  } finally {
    await accounts.close();
  }
  // Opening again applies nothing twice.
  const again = openSqliteForTest(dir);
  expect(await again.users.count()).toBe(1);
  await again.close();
});

it('gives the deliveries of a database made before receiving hosts the host of their URL', async () => {
  const made = openSqliteForTest(dir);
  const ada = (await made.users.ensure('ada', 'premium')).user.id;
  await made.deliveries.subscribe('job_1', ada, 'https://hooks.example:8443/in?x=1', 1000);
  await made.deliveries.subscribe('job_2', ada, 'http://[2001:db8::1]/', 1000);
  await made.close();
  const db = new Database(join(dir, 'pdn.sqlite'));
  const version = db.pragma('user_version', { simple: true }) as number;
  // As a server before receiving hosts left it: that migration undone, and the ones after it.
  db.exec('DROP TABLE small_outputs');
  db.exec('ALTER TABLE jobs DROP COLUMN inline_inputs');
  db.exec('DROP TABLE device_logins');
  db.exec('DROP TABLE webhook_attempts; DROP INDEX webhook_deliveries_user');
  db.exec('ALTER TABLE api_keys DROP COLUMN expires_at');
  db.exec('ALTER TABLE jobs DROP COLUMN queued_at');
  db.exec('DROP INDEX jobs_start; DROP INDEX jobs_unfinished');
  db.exec('ALTER TABLE webhook_deliveries DROP COLUMN host');
  db.pragma(`user_version = ${version - 8}`);
  db.close();
  const again = openSqliteForTest(dir);
  expect(await again.deliveries.get('job_1')).toMatchObject({ host: 'hooks.example:8443' });
  expect(await again.deliveries.get('job_2')).toMatchObject({ host: '[2001:db8::1]' });
  await again.close();
});

it('reads a job stored without a queue time, before or by an older process, as queued at its creation', async () => {
  const made = openSqliteForTest(dir);
  const ada = (await made.users.ensure('ada', 'premium')).user.id;
  const input = { files: [], params: {} };
  await made.jobs.create({ id: 'job_1', userId: ada, operation: 'compress', mode: 'async', input }, 5000);
  await made.close();
  const db = new Database(join(dir, 'pdn.sqlite'));
  const version = db.pragma('user_version', { simple: true }) as number;
  // As a server before queue times left it: that migration undone, and the ones after it.
  db.exec('DROP TABLE small_outputs');
  db.exec('ALTER TABLE jobs DROP COLUMN inline_inputs');
  db.exec('DROP TABLE device_logins');
  db.exec('DROP TABLE webhook_attempts; DROP INDEX webhook_deliveries_user');
  db.exec('ALTER TABLE api_keys DROP COLUMN expires_at');
  db.exec('ALTER TABLE jobs DROP COLUMN queued_at');
  db.pragma(`user_version = ${version - 6}`);
  db.close();
  const again = openSqliteForTest(dir);
  expect(await again.jobs.get('job_1')).toMatchObject({ createdAt: 5000, queuedAt: 5000 });
  await again.close();
  // An API process of the version before, during a rolling upgrade, names the columns it knew.
  const beside = new Database(join(dir, 'pdn.sqlite'));
  beside
    .prepare(
      `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at)
       VALUES ('job_2', ?, 'compress', 'async', 'queued', '{}', 6000)`,
    )
    .run(ada);
  beside.close();
  const last = openSqliteForTest(dir);
  expect(await last.jobs.get('job_2')).toMatchObject({ createdAt: 6000, queuedAt: 6000 });
  await last.close();
});

it('keeps a newer schema version when a server of an older one opens the database', async () => {
  const latest = openDatabase(dir);
  const version = latest.pragma('user_version', { simple: true }) as number;
  latest.close();
  // A server rolled back to the version before the sixth migration, then forward again.
  openDatabase(dir, 5).close();
  const again = openDatabase(dir);
  expect(again.pragma('user_version', { simple: true })).toBe(version);
  again.close();
});
