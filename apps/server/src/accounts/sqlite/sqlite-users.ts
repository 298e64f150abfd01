// UserStore over SQLite (users.contract.ts).

import type { Db } from '../../database/sqlite/sqlite-database.js';
import type { Plan } from '../plans.js';
import { toUser, USER_COLUMNS, type UserRow } from '../sql-rows.js';
import { checkUserName, EmailTakenError, type User, type UserStore } from '../users.js';

/** Runs `write`, turning a clash on the email column into EmailTakenError. */
function emailUnique<T>(email: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (/UNIQUE constraint failed: users\.email/.test((error as Error).message))
      throw new EmailTakenError(email);
    throw error;
  }
}

export class SqliteUsers implements UserStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  private one(where: string, value: string | number): User | undefined {
    const row = this.db.prepare(`SELECT ${USER_COLUMNS} FROM users WHERE ${where} = ?`).get(value) as
      | UserRow
      | undefined;
    return row && toUser(row);
  }

  async byId(id: number) {
    return this.one('id', id);
  }

  async byName(name: string) {
    return this.one('name', name);
  }

  async byEmail(email: string) {
    return this.one('email', email);
  }

  async list() {
    const rows = this.db
      .prepare(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`)
      .all() as UserRow[];
    return rows.map(toUser);
  }

  async count() {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }

  async ensure(name: string, plan: Plan) {
    checkUserName(name);
    const inserted = this.db
      .prepare('INSERT INTO users (name, plan, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, plan, this.now());
    const user = this.one('name', name);
    if (!user) throw new Error(`user ${name} vanished right after it was saved`);
    return { user, created: inserted.changes === 1 };
  }

  async createWithEmail(email: string, plan: Plan, passwordHash: string | null) {
    const createdAt = this.now();
    const { lastInsertRowid } = emailUnique(email, () =>
      this.db
        .prepare('INSERT INTO users (email, password_hash, plan, created_at) VALUES (?, ?, ?, ?)')
        .run(email, passwordHash, plan, createdAt),
    );
    return { id: Number(lastInsertRowid), name: null, email, plan, createdAt };
  }

  async setPlan(userId: number, plan: Plan) {
    return this.db.prepare('UPDATE users SET plan = ? WHERE id = ?').run(plan, userId).changes === 1;
  }

  async setEmail(userId: number, email: string) {
    return emailUnique(
      email,
      () => this.db.prepare('UPDATE users SET email = ? WHERE id = ?').run(email, userId).changes === 1,
    );
  }

  async setPasswordHash(userId: number, hash: string) {
    this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, userId);
  }

  async passwordHash(userId: number) {
    const row = this.db.prepare('SELECT password_hash FROM users WHERE id = ?').get(userId) as
      | { password_hash: string | null }
      | undefined;
    return row?.password_hash ?? undefined;
  }
}
