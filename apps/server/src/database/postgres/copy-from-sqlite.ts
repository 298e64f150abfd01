// Moving from embedded to shared: `pdn-server accounts copy --from DATA_DIR` copies the
// users (names, emails, password hashes, plans) and API keys (hashes, names, times, revocations) of a
// SQLite data folder into the PostgreSQL accounts database, ids included, so every key keeps working
// and every revoked one stays refused. Sessions, one-time links, throttled attempts and the rate
// windows are not copied: people sign in again, and hourly windows start afresh.
import type { Db } from '../sqlite/sqlite-database.js';
import type { PgDb } from './pg-db.js';

export interface CopyCounts {
  users: number;
  keys: number;
}

/** The target holds users already: copying beside them would mix two id spaces. */
export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

const USER_COLUMNS = ['id', 'name', 'email', 'password_hash', 'plan', 'created_at'] as const;
const KEY_COLUMNS = [
  'id',
  'user_id',
  'name',
  'kind',
  'hash',
  'prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
  'expires_at',
] as const;

function insertOf(table: string, columns: readonly string[]): string {
  const values = columns.map((_, index) => `$${index + 1}`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values})`;
}

/** Copies in one transaction: all or nothing. Throws TargetNotEmptyError when PostgreSQL has users. */
export async function copyFromSqlite(source: Db, target: PgDb): Promise<CopyCounts> {
  const users = source.prepare(`SELECT ${USER_COLUMNS.join(', ')} FROM users ORDER BY id`).all() as Record<
    string,
    unknown
  >[];
  const keys = source
    .prepare(`SELECT ${KEY_COLUMNS.join(', ')} FROM api_keys ORDER BY created_at, id`)
    .all() as Record<string, unknown>[];
  return target.transaction(async (sql) => {
    // Taken first, so two copies run at once cannot both find the target empty.
    await sql.rows('LOCK TABLE users IN EXCLUSIVE MODE');
    const [present] = await sql.rows<{ n: string }>('SELECT COUNT(*) AS n FROM users');
    if (Number(present?.n ?? 0) > 0)
      throw new TargetNotEmptyError(
        `the PostgreSQL accounts database already has ${present?.n} users; copy into an empty one`,
      );
    for (const user of users)
      await sql.changes(
        insertOf('users', USER_COLUMNS),
        USER_COLUMNS.map((c) => user[c]),
      );
    for (const key of keys)
      await sql.changes(
        insertOf('api_keys', KEY_COLUMNS),
        KEY_COLUMNS.map((c) => key[c]),
      );
    // Ids were given explicitly: the next user made in PostgreSQL must come after the copied ones.
    await sql.rows(
      "SELECT setval(pg_get_serial_sequence('users', 'id'), GREATEST((SELECT MAX(id) FROM users), 1))",
    );
    return { users: users.length, keys: keys.length };
  });
}
