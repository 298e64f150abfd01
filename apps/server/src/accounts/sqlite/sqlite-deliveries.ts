// DeliveryStore over SQLite (webhooks/delivery-store.contract.ts): one row per job with a callback.
// A claim is one immediate transaction, so two processes never take the same attempt.

import { type DeliveryRow as Row, toDelivery } from '../../webhooks/delivery-rows.js';
import type { Delivery, DeliveryStore } from '../../webhooks/delivery-store.js';
import type { Db } from './database.js';

export class SqliteDeliveries implements DeliveryStore {
  private readonly claimTx: (now: number, leaseUntil: number, limit: number) => Delivery[];

  constructor(private readonly db: Db) {
    const due = db.prepare(
      `SELECT * FROM webhook_deliveries WHERE state = 'due' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, job_id LIMIT ?`,
    );
    const take = db.prepare(
      'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE job_id = ?',
    );
    const tx = db.transaction((now: number, leaseUntil: number, limit: number) =>
      (due.all(now, limit) as Row[]).map((row) => {
        take.run(leaseUntil, row.job_id);
        return toDelivery({ ...row, attempts: row.attempts + 1, next_attempt_at: leaseUntil });
      }),
    );
    this.claimTx = (...args) => tx.immediate(...args);
  }

  async subscribe(jobId: string, userId: number, url: string, now: number) {
    this.db
      .prepare(
        `INSERT INTO webhook_deliveries (job_id, user_id, url, state, attempts, created_at)
         VALUES (?, ?, ?, 'waiting', 0, ?)`,
      )
      .run(jobId, userId, url, now);
  }

  async ready(jobId: string, event: { id: string; body: string }, now: number) {
    const { changes } = this.db
      .prepare(
        `UPDATE webhook_deliveries SET state = 'due', event_id = ?, body = ?, next_attempt_at = ?
         WHERE job_id = ? AND state = 'waiting'`,
      )
      .run(event.id, event.body, now, jobId);
    return changes > 0;
  }

  async waiting() {
    const rows = this.db.prepare("SELECT job_id FROM webhook_deliveries WHERE state = 'waiting'").all() as {
      job_id: string;
    }[];
    return rows.map((row) => row.job_id);
  }

  async claimDue(now: number, leaseUntil: number, limit: number) {
    return this.claimTx(now, leaseUntil, limit);
  }

  async settle(
    jobId: string,
    outcome: { state: 'delivered' | 'failed' } | { state: 'due'; retryAt: number },
  ) {
    this.db
      .prepare('UPDATE webhook_deliveries SET state = ?, next_attempt_at = ? WHERE job_id = ?')
      .run(outcome.state, outcome.state === 'due' ? outcome.retryAt : null, jobId);
  }

  async drop(jobId: string) {
    this.db.prepare("DELETE FROM webhook_deliveries WHERE job_id = ? AND state = 'waiting'").run(jobId);
  }

  async forget(before: number) {
    this.db.prepare('DELETE FROM webhook_deliveries WHERE created_at <= ?').run(before);
  }

  async get(jobId: string) {
    const row = this.db.prepare('SELECT * FROM webhook_deliveries WHERE job_id = ?').get(jobId) as
      | Row
      | undefined;
    return row && toDelivery(row);
  }
}
