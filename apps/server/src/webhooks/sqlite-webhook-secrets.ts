// WebhookSecretStore over SQLite (webhook-secrets.contract.ts). A put is one immediate
// transaction, so a rotation and a first use at once leave exactly one current secret.

import type { Db } from '../database/sqlite/sqlite-database.js';
import type { WebhookSecretStore } from './webhook-secrets.js';

export class SqliteWebhookSecrets implements WebhookSecretStore {
  private readonly putTx: (
    userId: number,
    secret: string,
    now: number,
    retireAt: number,
    onlyIfNone: boolean,
  ) => void;

  constructor(private readonly db: Db) {
    const current = db.prepare('SELECT 1 FROM webhook_secrets WHERE user_id = ? AND retired_at IS NULL');
    const drop = db.prepare('DELETE FROM webhook_secrets WHERE user_id = ? AND retired_at <= ?');
    const retire = db.prepare(
      'UPDATE webhook_secrets SET retired_at = ? WHERE user_id = ? AND retired_at IS NULL',
    );
    const insert = db.prepare('INSERT INTO webhook_secrets (user_id, secret, created_at) VALUES (?, ?, ?)');
    const tx = db.transaction(
      (userId: number, secret: string, now: number, retireAt: number, onlyIfNone: boolean) => {
        if (onlyIfNone && current.get(userId)) return;
        drop.run(userId, now);
        retire.run(retireAt, userId);
        insert.run(userId, secret, now);
      },
    );
    this.putTx = (...args) => tx.immediate(...args);
  }

  async valid(userId: number, now: number) {
    const rows = this.db
      .prepare(
        `SELECT secret FROM webhook_secrets WHERE user_id = ? AND (retired_at IS NULL OR retired_at > ?)
         ORDER BY retired_at IS NULL DESC, created_at DESC, rowid DESC`,
      )
      .all(userId, now) as { secret: string }[];
    return rows.map((row) => row.secret);
  }

  async put(userId: number, secret: string, now: number, retireAt: number, onlyIfNone: boolean) {
    this.putTx(userId, secret, now, retireAt, onlyIfNone);
  }
}
