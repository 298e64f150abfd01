// DeliveryStore over SQLite (delivery-store.contract.ts): one row per job with a callback.
// A claim is one immediate transaction, so two processes never take the same attempt. The skip lists
// travel as JSON arrays, read back by json_each.

import type { Db } from '../database/sqlite/sqlite-database.js';
import {
  type AttemptRow,
  attemptValues,
  fairPick,
  nextAttemptSql,
  type DeliveryRow as Row,
  toDelivery,
  toHistories,
} from './delivery-rows.js';
import type { AttemptRecord, ClaimRoom, Delivery, DeliveryStore } from './delivery-store.js';
import { receivingHost } from './receiving-host.js';

export class SqliteDeliveryStore implements DeliveryStore {
  private readonly claimTx: (now: number, leaseUntil: number, room: ClaimRoom) => Delivery[];

  constructor(private readonly db: Db) {
    const due = db.prepare(
      `SELECT * FROM webhook_deliveries JOIN (${fairPick(
        `next_attempt_at <= ? AND user_id NOT IN (SELECT value FROM json_each(?))
           AND host NOT IN (SELECT value FROM json_each(?))`,
      )} LIMIT ?) AS picked USING (job_id, next_attempt_at)
       ORDER BY next_attempt_at, job_id`,
    );
    const take = db.prepare(
      'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE job_id = ?',
    );
    const tx = db.transaction((now: number, leaseUntil: number, room: ClaimRoom) =>
      (due.all(now, JSON.stringify(room.skipUsers), JSON.stringify(room.skipHosts), room.limit) as Row[]).map(
        (row) => {
          take.run(leaseUntil, row.job_id);
          return toDelivery({ ...row, attempts: row.attempts + 1, next_attempt_at: leaseUntil });
        },
      ),
    );
    this.claimTx = (...args) => tx.immediate(...args);
  }

  async subscribe(jobId: string, userId: number, url: string, now: number) {
    this.db
      .prepare(
        `INSERT INTO webhook_deliveries (job_id, user_id, url, host, state, attempts, created_at)
         VALUES (?, ?, ?, ?, 'waiting', 0, ?)`,
      )
      .run(jobId, userId, url, receivingHost(url), now);
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

  async claimDue(now: number, leaseUntil: number, room: ClaimRoom) {
    return this.claimTx(now, leaseUntil, room);
  }

  async nextAttemptAfter(now: number) {
    const row = this.db.prepare(nextAttemptSql('?')).get(now) as { at: number | null };
    return row.at ?? undefined;
  }

  async settle(
    jobId: string,
    outcome: { state: 'delivered' | 'failed' } | { state: 'due'; retryAt: number },
    attempt: AttemptRecord,
  ) {
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE webhook_deliveries SET state = ?, next_attempt_at = ? WHERE job_id = ?')
        .run(outcome.state, outcome.state === 'due' ? outcome.retryAt : null, jobId);
      this.db
        .prepare(
          `INSERT INTO webhook_attempts (job_id, number, at, status, error, body_start)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, number) DO NOTHING`,
        )
        .run(jobId, ...attemptValues(attempt));
    })();
  }

  async recent(userId: number, limit: number) {
    const rows = this.db
      .prepare(
        'SELECT * FROM webhook_deliveries WHERE user_id = ? ORDER BY created_at DESC, job_id DESC LIMIT ?',
      )
      .all(userId, limit) as Row[];
    const attempts = this.db
      .prepare('SELECT * FROM webhook_attempts WHERE job_id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(rows.map((row) => row.job_id))) as AttemptRow[];
    return toHistories(rows, attempts);
  }

  async sendAgain(jobId: string, userId: number, now: number) {
    const { changes } = this.db
      .prepare(
        `UPDATE webhook_deliveries SET state = 'due', next_attempt_at = ?
          WHERE job_id = ? AND user_id = ? AND state IN ('delivered', 'failed')`,
      )
      .run(now, jobId, userId);
    return changes === 1;
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
