// SessionStore over PostgreSQL (sessions.contract.ts).

import { num, type PgDb } from '../../database/postgres/pg-db.js';
import type { SessionRecord, SessionStore } from '../sessions.js';

export class PgSessions implements SessionStore {
  constructor(private readonly db: PgDb) {}

  async insert(idHash: string, record: SessionRecord) {
    await this.db.changes(
      'INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5)',
      [idHash, record.userId, record.csrfToken, record.createdAt, record.lastSeenAt],
    );
  }

  async find(idHash: string) {
    const [row] = await this.db.rows<{
      user_id: number;
      csrf_token: string;
      created_at: string;
      last_seen_at: string;
    }>('SELECT user_id, csrf_token, created_at, last_seen_at FROM sessions WHERE id_hash = $1', [idHash]);
    return (
      row && {
        userId: row.user_id,
        csrfToken: row.csrf_token,
        createdAt: num(row.created_at),
        lastSeenAt: num(row.last_seen_at),
      }
    );
  }

  async touch(idHash: string, at: number) {
    await this.db.changes('UPDATE sessions SET last_seen_at = $1 WHERE id_hash = $2', [at, idHash]);
  }

  async delete(idHash: string) {
    await this.db.changes('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteForUser(userId: number) {
    await this.db.changes('DELETE FROM sessions WHERE user_id = $1', [userId]);
  }

  async deleteExpired(seenBefore: number, createdBefore: number) {
    await this.db.changes('DELETE FROM sessions WHERE last_seen_at <= $1 OR created_at <= $2', [
      seenBefore,
      createdBefore,
    ]);
  }
}
