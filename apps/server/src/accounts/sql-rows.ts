// Rows of the users and api_keys tables as both SQL backends read them (sqlite/, postgres/), and the
// records they stand for. Times are milliseconds: SQLite returns numbers, node-postgres returns BIGINT
// as strings, so both go through Number() (every value here is below 2^53).
import type { ApiKeyRecord } from './api-keys.js';
import type { KeyKind } from './key-format.js';
import type { Plan } from './plans.js';
import { type User, userLabel } from './users.js';

type Millis = number | string;

export interface UserRow {
  id: number;
  name: string | null;
  email: string | null;
  plan: Plan;
  created_at: Millis;
}

export const USER_COLUMNS = 'id, name, email, plan, created_at';

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, email: row.email, plan: row.plan, createdAt: Number(row.created_at) };
}

export interface KeyRow {
  id: string;
  user_id: number;
  user_name: string | null;
  user_email: string | null;
  name: string;
  kind: KeyKind;
  prefix: string;
  created_at: Millis;
  last_used_at: Millis | null;
  revoked_at: Millis | null;
  expires_at: Millis | null;
}

/** The SELECT list that reads a KeyRow from `api_keys k JOIN users u`. */
export const KEY_COLUMNS = `k.id, k.user_id, u.name AS user_name, u.email AS user_email, k.name, k.kind, k.prefix,
                k.created_at, k.last_used_at, k.revoked_at, k.expires_at`;

const orNull = (value: Millis | null) => (value === null ? null : Number(value));

export function toKeyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    owner: userLabel({ name: row.user_name, email: row.user_email }),
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    createdAt: Number(row.created_at),
    lastUsedAt: orNull(row.last_used_at),
    revokedAt: orNull(row.revoked_at),
    expiresAt: orNull(row.expires_at),
  };
}
