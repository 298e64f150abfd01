// DeliveryStore over PostgreSQL (webhooks/delivery-store.contract.ts): a claim is one UPDATE over rows
// picked FOR UPDATE SKIP LOCKED, so processes sharing the database never take the same attempt.

import { type DeliveryRow as Row, toDelivery } from '../../webhooks/delivery-rows.js';
import type { DeliveryStore } from '../../webhooks/delivery-store.js';
import type { PgDb } from './pg-db.js';

export class PgDeliveries implements DeliveryStore {
  constructor(private readonly db: PgDb) {}

  async subscribe(jobId: string, userId: number, url: string, now: number) {
    await this.db.changes(
      `INSERT INTO webhook_deliveries (job_id, user_id, url, state, attempts, created_at)
       VALUES ($1, $2, $3, 'waiting', 0, $4)`,
      [jobId, userId, url, now],
    );
  }

  async ready(jobId: string, event: { id: string; body: string }, now: number) {
    const changed = await this.db.changes(
      `UPDATE webhook_deliveries SET state = 'due', event_id = $1, body = $2, next_attempt_at = $3
       WHERE job_id = $4 AND state = 'waiting'`,
      [event.id, event.body, now, jobId],
    );
    return changed > 0;
  }

  async waiting() {
    const rows = await this.db.rows<{ job_id: string }>(
      "SELECT job_id FROM webhook_deliveries WHERE state = 'waiting'",
    );
    return rows.map((row) => row.job_id);
  }

  async claimDue(now: number, leaseUntil: number, limit: number) {
    const rows = await this.db.rows<Row>(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = $1
       WHERE job_id IN (
         SELECT job_id FROM webhook_deliveries WHERE state = 'due' AND next_attempt_at <= $2
         ORDER BY next_attempt_at, job_id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [leaseUntil, now, limit],
    );
    return rows.map(toDelivery).sort((a, b) => (a.jobId < b.jobId ? -1 : 1));
  }

  async settle(
    jobId: string,
    outcome: { state: 'delivered' | 'failed' } | { state: 'due'; retryAt: number },
  ) {
    await this.db.changes(
      'UPDATE webhook_deliveries SET state = $1, next_attempt_at = $2 WHERE job_id = $3',
      [outcome.state, outcome.state === 'due' ? outcome.retryAt : null, jobId],
    );
  }

  async drop(jobId: string) {
    await this.db.changes("DELETE FROM webhook_deliveries WHERE job_id = $1 AND state = 'waiting'", [jobId]);
  }

  async forget(before: number) {
    await this.db.changes('DELETE FROM webhook_deliveries WHERE created_at <= $1', [before]);
  }

  async get(jobId: string) {
    const [row] = await this.db.rows<Row>('SELECT * FROM webhook_deliveries WHERE job_id = $1', [jobId]);
    return row && toDelivery(row);
  }
}
