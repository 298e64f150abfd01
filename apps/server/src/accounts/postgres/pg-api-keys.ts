// ApiKeyStore over PostgreSQL (api-keys.contract.ts). authenticate() reads the table on every call:
// no cache of key validity, so a key revoked through any process is refused by every other on its
// very next request.
import { randomBytes } from 'node:crypto';
import type { PgDb, Sql } from '../../database/postgres/pg-db.js';
import { type ApiKeyRecord, type ApiKeyStore, LAST_USED_PRECISION_MS, type Principal } from '../api-keys.js';
import { displayPrefix, generateKey, hashKey, type KeyKind, parseKeyKind } from '../key-format.js';
import type { Plan } from '../plans.js';
import { KEY_COLUMNS, type KeyRow, toKeyRecord } from '../sql-rows.js';
import { userLabel } from '../users.js';

/** A key that authenticates at `now` (a parameter): not revoked, and not past a rolled key's grace. */
const ACTIVE = (now: string) => `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`;

export class PgApiKeys implements ApiKeyStore {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => number,
  ) {}

  async create(userId: number, kind: KeyKind, name: string) {
    const { key, id } = await this.insert(this.db, userId, kind, name);
    return { key, record: await this.one(id) };
  }

  private async insert(sql: Sql, userId: number, kind: KeyKind, name: string) {
    const key = generateKey(kind);
    const id = `key_${randomBytes(6).toString('hex')}`;
    await sql.changes(
      'INSERT INTO api_keys (id, user_id, kind, hash, prefix, name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [id, userId, kind, hashKey(key), displayPrefix(key), name, this.now()],
    );
    return { key, id };
  }

  private async one(id: string): Promise<ApiKeyRecord> {
    const [record] = await this.select('k.id = $1', [id]);
    if (!record) throw new Error(`key ${id} vanished right after it was saved`);
    return record;
  }

  private async select(where: string, params: unknown[]): Promise<ApiKeyRecord[]> {
    const rows = await this.db.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS}
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE ${where}
        ORDER BY k.created_at, k.id`,
      params,
    );
    return rows.map(toKeyRecord);
  }

  list(userId?: number) {
    return this.select('$1::integer IS NULL OR k.user_id = $1', [userId ?? null]);
  }

  async revoke(id: string, ownerId?: number) {
    const changed = await this.db.changes(
      `UPDATE api_keys SET revoked_at = $1
        WHERE id = $2 AND revoked_at IS NULL AND ($3::integer IS NULL OR user_id = $3)`,
      [this.now(), id, ownerId ?? null],
    );
    return changed === 1;
  }

  async rename(id: string, ownerId: number, name: string) {
    const changed = await this.db.changes(
      `UPDATE api_keys SET name = $1 WHERE id = $2 AND user_id = $3 AND ${ACTIVE('$4')}`,
      [name, id, ownerId, this.now()],
    );
    return changed === 1;
  }

  async roll(id: string, ownerId: number, graceMs: number) {
    const now = this.now();
    const rolled = await this.db.transaction(async (sql) => {
      // The row lock of the UPDATE makes a second roll of the same key wait, then find it rolled. A
      // key rolled without grace is revoked as well as expired: a process of the version before,
      // during a rolling upgrade, knows revocation only.
      const [old] = await sql.rows<{ kind: KeyKind; name: string }>(
        `UPDATE api_keys SET expires_at = $1, revoked_at = CASE WHEN $4::bigint = 0 THEN $5::bigint END
          WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL AND expires_at IS NULL
          RETURNING kind, name`,
        [now + graceMs, id, ownerId, graceMs, now],
      );
      return old && (await this.insert(sql, ownerId, old.kind, old.name));
    });
    return rolled && { key: rolled.key, record: await this.one(rolled.id) };
  }

  async authenticate(presented: string): Promise<Principal | undefined> {
    // Format first: a malformed key never reaches the database.
    if (parseKeyKind(presented) === undefined) return undefined;
    const now = this.now();
    // One round trip: the lookup, and "last used" refreshed at most once a minute.
    const [row] = await this.db.rows<{
      key_id: string;
      kind: KeyKind;
      user_id: number;
      name: string | null;
      email: string | null;
      plan: Plan;
    }>(
      `WITH found AS (
         SELECT k.id AS key_id, k.kind, u.id AS user_id, u.name, u.email, u.plan
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.hash = $1 AND ${ACTIVE('$2')}
       ), used AS (
         UPDATE api_keys SET last_used_at = $2
          WHERE id = (SELECT key_id FROM found) AND (last_used_at IS NULL OR last_used_at < $3)
       )
       SELECT * FROM found`,
      [hashKey(presented), now, now - LAST_USED_PRECISION_MS],
    );
    if (!row) return undefined;
    return {
      userId: row.user_id,
      owner: userLabel(row),
      plan: row.plan,
      keyId: row.key_id,
      keyKind: row.kind,
    };
  }
}
