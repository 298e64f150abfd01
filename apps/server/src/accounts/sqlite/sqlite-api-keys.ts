// ApiKeyStore over SQLite (api-keys.contract.ts).
import { randomBytes } from 'node:crypto';
import type { Db } from '../../database/sqlite/sqlite-database.js';
import { type ApiKeyRecord, type ApiKeyStore, LAST_USED_PRECISION_MS, type Principal } from '../api-keys.js';
import { displayPrefix, generateKey, hashKey, type KeyKind, parseKeyKind } from '../key-format.js';
import type { Plan } from '../plans.js';
import { KEY_COLUMNS, type KeyRow, toKeyRecord } from '../sql-rows.js';
import { userLabel } from '../users.js';

/**
 * A key rolled without grace is revoked as well as expired: a process of the version before, during
 * a rolling upgrade, knows revocation only.
 */
const REVOKED_WITHOUT_GRACE = 'CASE WHEN @grace = 0 THEN @now END';

/** A key that authenticates at @now: not revoked, and not past a rolled key's grace. */
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @now)';

export class SqliteApiKeys implements ApiKeyStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async create(userId: number, kind: KeyKind, name: string) {
    const { key, id } = this.insert(userId, kind, name);
    return { key, record: await this.one(id) };
  }

  private insert(userId: number, kind: KeyKind, name: string): { key: string; id: string } {
    const key = generateKey(kind);
    const id = `key_${randomBytes(6).toString('hex')}`;
    this.db
      .prepare(
        'INSERT INTO api_keys (id, user_id, kind, hash, prefix, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, userId, kind, hashKey(key), displayPrefix(key), name, this.now());
    return { key, id };
  }

  private async one(id: string): Promise<ApiKeyRecord> {
    const [record] = await this.select('k.id = @id', { id });
    if (!record) throw new Error(`key ${id} vanished right after it was saved`);
    return record;
  }

  private async select(
    where: string,
    params: Record<string, string | number | null>,
  ): Promise<ApiKeyRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT ${KEY_COLUMNS}
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE ${where}
          ORDER BY k.created_at, k.id`,
      )
      .all(params) as KeyRow[];
    return rows.map(toKeyRecord);
  }

  list(userId?: number) {
    return this.select('@user IS NULL OR k.user_id = @user', { user: userId ?? null });
  }

  async revoke(id: string, ownerId?: number) {
    return (
      this.db
        .prepare(
          `UPDATE api_keys SET revoked_at = @now
            WHERE id = @id AND revoked_at IS NULL AND (@owner IS NULL OR user_id = @owner)`,
        )
        .run({ now: this.now(), id, owner: ownerId ?? null }).changes === 1
    );
  }

  async rename(id: string, ownerId: number, name: string) {
    return (
      this.db
        .prepare(
          `UPDATE api_keys SET name = @name
            WHERE id = @id AND user_id = @owner AND ${ACTIVE}`,
        )
        .run({ name, id, owner: ownerId, now: this.now() }).changes === 1
    );
  }

  async roll(id: string, ownerId: number, graceMs: number) {
    const now = this.now();
    const rolled = this.db.transaction(() => {
      const old = this.db
        .prepare(
          `UPDATE api_keys SET expires_at = @expires, revoked_at = ${REVOKED_WITHOUT_GRACE}
            WHERE id = @id AND user_id = @owner AND revoked_at IS NULL AND expires_at IS NULL
            RETURNING kind, name`,
        )
        .get({ expires: now + graceMs, id, owner: ownerId, now, grace: graceMs }) as
        | { kind: KeyKind; name: string }
        | undefined;
      return old && this.insert(ownerId, old.kind, old.name);
    })();
    return rolled && { key: rolled.key, record: await this.one(rolled.id) };
  }

  async authenticate(presented: string): Promise<Principal | undefined> {
    // Format first: a malformed key never reaches the database.
    if (parseKeyKind(presented) === undefined) return undefined;
    const row = this.db
      .prepare(
        `SELECT k.id AS key_id, k.kind, u.id AS user_id, u.name, u.email, u.plan
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.hash = @hash AND ${ACTIVE}`,
      )
      .get({ hash: hashKey(presented), now: this.now() }) as
      | {
          key_id: string;
          kind: KeyKind;
          user_id: number;
          name: string | null;
          email: string | null;
          plan: Plan;
        }
      | undefined;
    if (!row) return undefined;
    const now = this.now();
    this.db
      .prepare(
        'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      )
      .run(now, row.key_id, now - LAST_USED_PRECISION_MS);
    return {
      userId: row.user_id,
      owner: userLabel(row),
      plan: row.plan,
      keyId: row.key_id,
      keyKind: row.kind,
    };
  }
}
