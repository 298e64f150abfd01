// Users: a name and a plan. Rate limits and upload caps belong to the user, shared by all their keys.
import type { Db } from './database.js';
import type { Plan } from './plans.js';

export interface User {
  id: number;
  name: string;
  plan: Plan;
  createdAt: number;
}

interface UserRow {
  id: number;
  name: string;
  plan: Plan;
  created_at: number;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A user name the admin command cannot accept; the message says what is allowed. */
export class InvalidUserNameError extends Error {
  override name = 'InvalidUserNameError';
  constructor(candidate: string) {
    super(`invalid user name '${candidate}': use 1-64 letters, digits, '.', '_', '@' or '-'`);
  }
}

function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at };
}

export class Users {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  find(name: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE name = ?').get(name) as UserRow | undefined;
    return row && toUser(row);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }

  /** Returns the user, creating it on `plan` first when it does not exist (plan of an existing user is kept). */
  ensure(name: string, plan: Plan): { user: User; created: boolean } {
    if (!NAME_PATTERN.test(name)) throw new InvalidUserNameError(name);
    const inserted = this.db
      .prepare('INSERT INTO users (name, plan, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, plan, this.now());
    const user = this.find(name);
    if (!user) throw new Error(`user ${name} vanished right after it was saved`);
    return { user, created: inserted.changes === 1 };
  }

  /** Changes a user's plan; false when there is no such user. Takes effect on the next request. */
  setPlan(name: string, plan: Plan): boolean {
    return this.db.prepare('UPDATE users SET plan = ? WHERE name = ?').run(plan, name).changes === 1;
  }
}
