// SessionStore over SQLite (sessions.contract.ts).

import type { Db } from '../../database/sqlite/sqlite-database.js';
import type { SessionRecord, SessionStore } from '../sessions.js';

export class SqliteSessions implements SessionStore {
  constructor(private readonly db: Db) {}

  async insert(idHash: string, record: SessionRecord) {
    this.db
      .prepare(
        'INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(idHash, record.userId, record.csrfToken, record.createdAt, record.lastSeenAt);
  }

  async find(idHash: string) {
    const row = this.db
      .prepare('SELECT user_id, csrf_token, created_at, last_seen_at FROM sessions WHERE id_hash = ?')
      .get(idHash) as
      | { user_id: number; csrf_token: string; created_at: number; last_seen_at: number }
      | undefined;
    return (
      row && {
        userId: row.user_id,
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
      }
    );
  }

  async touch(idHash: string, at: number) {
    this.db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?').run(at, idHash);
  }

  async delete(idHash: string) {
    this.db.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash);
  }

  async deleteForUser(userId: number) {
    this.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(userId);
  }

  async deleteExpired(seenBefore: number, createdBefore: number) {
    this.db
      .prepare('DELETE FROM sessions WHERE last_seen_at <= ? OR created_at <= ?')
      .run(seenBefore, createdBefore);
  }
}
