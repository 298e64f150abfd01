// API keys: created by the admin command, shown once, stored as SHA-256 hashes (issue #2), revoked by
// id. authenticate() is what the HTTP auth middleware calls for every /api/v1 request.
import { randomBytes } from 'node:crypto';
import type { Db } from './database.js';
import { displayPrefix, generateKey, hashKey, type KeyKind, parseKeyKind } from './key-format.js';
import type { Plan } from './plans.js';
import type { User } from './users.js';

const LAST_USED_PRECISION_MS = 60_000;

export interface ApiKeyRecord {
  id: string;
  userName: string;
  kind: KeyKind;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Who is calling: the key's owner and the key itself (its kind goes into the logs). */
export interface Principal {
  userId: number;
  userName: string;
  plan: Plan;
  keyId: string;
  keyKind: KeyKind;
}

interface KeyRow {
  id: string;
  user_name: string;
  kind: KeyKind;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userName: row.user_name,
    kind: row.kind,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export class ApiKeys {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates a key for `user` and returns it in full: the only time the plain key exists. */
  create(user: User, kind: KeyKind): { key: string; record: ApiKeyRecord } {
    const key = generateKey(kind);
    // Everything the new row holds is known here: no need to read it back (or every key with it).
    const record: ApiKeyRecord = {
      id: `key_${randomBytes(6).toString('hex')}`,
      userName: user.name,
      kind,
      prefix: displayPrefix(key),
      createdAt: this.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    this.db
      .prepare('INSERT INTO api_keys (id, user_id, kind, hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(record.id, user.id, kind, hashKey(key), record.prefix, record.createdAt);
    return { key, record };
  }

  /** All keys, or one user's, oldest first. */
  list(userName: string | undefined): ApiKeyRecord[] {
    const rows = this.db
      .prepare(
        `SELECT k.id, u.name AS user_name, k.kind, k.prefix, k.created_at, k.last_used_at, k.revoked_at
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE @user IS NULL OR u.name = @user
          ORDER BY k.created_at, k.id`,
      )
      .all({ user: userName ?? null }) as KeyRow[];
    return rows.map(toRecord);
  }

  /** Revokes a key; false when there is no such key or it was already revoked. */
  revoke(id: string): boolean {
    return (
      this.db
        .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(this.now(), id).changes === 1
    );
  }

  /** The caller behind a presented key, or undefined for a malformed, unknown or revoked one. */
  authenticate(presented: string): Principal | undefined {
    // Format first: a malformed key never reaches the database (issue #2).
    if (parseKeyKind(presented) === undefined) return undefined;
    const row = this.db
      .prepare(
        `SELECT k.id AS key_id, k.kind, u.id AS user_id, u.name, u.plan
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.hash = ? AND k.revoked_at IS NULL`,
      )
      .get(hashKey(presented)) as
      | { key_id: string; kind: KeyKind; user_id: number; name: string; plan: Plan }
      | undefined;
    if (!row) return undefined;
    // Minute precision is plenty for "last used" and spares a write on most requests.
    const now = this.now();
    this.db
      .prepare(
        'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      )
      .run(now, row.key_id, now - LAST_USED_PRECISION_MS);
    return { userId: row.user_id, userName: row.name, plan: row.plan, keyId: row.key_id, keyKind: row.kind };
  }
}
