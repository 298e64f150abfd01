// SignInLinkStore over SQLite (sign-in-links.contract.ts).

import type { Db } from '../../database/sqlite/sqlite-database.js';
import type { SignInLinkStore } from '../sign-in-links.js';

export class SqliteSignInLinks implements SignInLinkStore {
  constructor(private readonly db: Db) {}

  async insert(tokenHash: string, userId: number, expiresAt: number) {
    this.db
      .prepare('INSERT INTO sign_in_links (token_hash, user_id, expires_at) VALUES (?, ?, ?)')
      .run(tokenHash, userId, expiresAt);
  }

  async peek(tokenHash: string, now: number) {
    const row = this.db
      .prepare('SELECT user_id FROM sign_in_links WHERE token_hash = ? AND expires_at > ?')
      .get(tokenHash, now) as { user_id: number } | undefined;
    return row?.user_id;
  }

  async redeem(tokenHash: string, now: number) {
    // One statement deletes and answers: two processes redeeming together cannot both get the user.
    // Read with all(), never get(): get() stops at the first row, and the commit that follows can fail
    // (SQLITE_FULL on a full disk) without a word, leaving the link usable again (sqlite-jobs.ts).
    const [row] = this.db
      .prepare('DELETE FROM sign_in_links WHERE token_hash = ? RETURNING user_id, expires_at')
      .all(tokenHash) as { user_id: number; expires_at: number }[];
    return row !== undefined && row.expires_at > now ? row.user_id : undefined;
  }

  async deleteForUser(userId: number) {
    this.db.prepare('DELETE FROM sign_in_links WHERE user_id = ?').run(userId);
  }

  async deleteExpired(now: number) {
    this.db.prepare('DELETE FROM sign_in_links WHERE expires_at <= ?').run(now);
  }
}
