// WebhookSecretStore over PostgreSQL (webhook-secrets.contract.ts). A put holds the user's
// row (FOR UPDATE) for its transaction, so a rotation and first uses at once leave one current secret.

import type { PgDb } from '../database/postgres/pg-db.js';
import type { WebhookSecretStore } from './webhook-secrets.js';

export class PgWebhookSecrets implements WebhookSecretStore {
  constructor(private readonly db: PgDb) {}

  async valid(userId: number, now: number) {
    const rows = await this.db.rows<{ secret: string }>(
      `SELECT secret FROM webhook_secrets WHERE user_id = $1 AND (retired_at IS NULL OR retired_at > $2)
       ORDER BY retired_at IS NULL DESC, created_at DESC, id DESC`,
      [userId, now],
    );
    return rows.map((row) => row.secret);
  }

  async put(userId: number, secret: string, now: number, retireAt: number, onlyIfNone: boolean) {
    await this.db.transaction(async (sql) => {
      await sql.rows('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (onlyIfNone) {
        const current = await sql.rows(
          'SELECT 1 FROM webhook_secrets WHERE user_id = $1 AND retired_at IS NULL',
          [userId],
        );
        if (current.length > 0) return;
      }
      await sql.changes('DELETE FROM webhook_secrets WHERE user_id = $1 AND retired_at <= $2', [userId, now]);
      await sql.changes(
        'UPDATE webhook_secrets SET retired_at = $1 WHERE user_id = $2 AND retired_at IS NULL',
        [retireAt, userId],
      );
      await sql.changes('INSERT INTO webhook_secrets (user_id, secret, created_at) VALUES ($1, $2, $3)', [
        userId,
        secret,
        now,
      ]);
    });
  }
}
