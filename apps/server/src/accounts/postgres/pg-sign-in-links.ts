// SignInLinkStore over PostgreSQL (sign-in-links.contract.ts).

import { num, type PgDb } from '../../database/postgres/pg-db.js';
import type { SignInLinkStore } from '../sign-in-links.js';

export class PgSignInLinks implements SignInLinkStore {
  constructor(private readonly db: PgDb) {}

  async insert(tokenHash: string, userId: number, expiresAt: number) {
    await this.db.changes('INSERT INTO sign_in_links (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [
      tokenHash,
      userId,
      expiresAt,
    ]);
  }

  async peek(tokenHash: string, now: number) {
    const [row] = await this.db.rows<{ user_id: number }>(
      'SELECT user_id FROM sign_in_links WHERE token_hash = $1 AND expires_at > $2',
      [tokenHash, now],
    );
    return row?.user_id;
  }

  async redeem(tokenHash: string, now: number) {
    // One statement deletes and answers: two processes redeeming together cannot both get the user.
    const [row] = await this.db.rows<{ user_id: number; expires_at: string }>(
      'DELETE FROM sign_in_links WHERE token_hash = $1 RETURNING user_id, expires_at',
      [tokenHash],
    );
    return row !== undefined && num(row.expires_at) > now ? row.user_id : undefined;
  }

  async deleteForUser(userId: number) {
    await this.db.changes('DELETE FROM sign_in_links WHERE user_id = $1', [userId]);
  }

  async deleteExpired(now: number) {
    await this.db.changes('DELETE FROM sign_in_links WHERE expires_at <= $1', [now]);
  }
}
