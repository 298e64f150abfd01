// UserStore over PostgreSQL (users.contract.ts).

import { num, type PgDb } from '../../database/postgres/pg-db.js';
import type { Plan } from '../plans.js';
import { toUser, USER_COLUMNS, type UserRow } from '../sql-rows.js';
import { checkUserName, EmailTakenError, type User, type UserStore } from '../users.js';

/** Runs `write`, turning a clash on the email column (unique_violation) into EmailTakenError. */
async function emailUnique<T>(email: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === '23505' && constraint === 'users_email_key') throw new EmailTakenError(email);
    throw error;
  }
}

export class PgUsers implements UserStore {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => number,
  ) {}

  private async one(where: string, value: string | number): Promise<User | undefined> {
    const [row] = await this.db.rows<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE ${where} = $1`, [
      value,
    ]);
    return row && toUser(row);
  }

  byId(id: number) {
    return this.one('id', id);
  }

  byName(name: string) {
    return this.one('name', name);
  }

  byEmail(email: string) {
    return this.one('email', email);
  }

  async list() {
    return (await this.db.rows<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`)).map(
      toUser,
    );
  }

  async count() {
    const [row] = await this.db.rows<{ n: string }>('SELECT COUNT(*) AS n FROM users');
    return num(row?.n ?? 0);
  }

  async ensure(name: string, plan: Plan) {
    checkUserName(name);
    const created = await this.db.changes(
      'INSERT INTO users (name, plan, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, plan, this.now()],
    );
    const user = await this.one('name', name);
    if (!user) throw new Error(`user ${name} vanished right after it was saved`);
    return { user, created: created === 1 };
  }

  async createWithEmail(email: string, plan: Plan, passwordHash: string | null) {
    const [row] = await emailUnique(email, () =>
      this.db.rows<UserRow>(
        `INSERT INTO users (email, password_hash, plan, created_at) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
        [email, passwordHash, plan, this.now()],
      ),
    );
    if (!row) throw new Error(`user ${email} was not saved`);
    return toUser(row);
  }

  async setPlan(userId: number, plan: Plan) {
    return (await this.db.changes('UPDATE users SET plan = $1 WHERE id = $2', [plan, userId])) === 1;
  }

  async setEmail(userId: number, email: string) {
    return emailUnique(
      email,
      async () => (await this.db.changes('UPDATE users SET email = $1 WHERE id = $2', [email, userId])) === 1,
    );
  }

  async setPasswordHash(userId: number, hash: string) {
    await this.db.changes('UPDATE users SET password_hash = $1 WHERE id = $2', [hash, userId]);
  }

  async passwordHash(userId: number) {
    const [row] = await this.db.rows<{ password_hash: string | null }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [userId],
    );
    return row?.password_hash ?? undefined;
  }
}
