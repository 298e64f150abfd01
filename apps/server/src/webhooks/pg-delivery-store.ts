// DeliveryStore over PostgreSQL (delivery-store.contract.ts): a claim is one UPDATE of the rows the
// fair pick chose that are still due. Two processes may pick the same row: the second UPDATE waits
// for the first's lock, then checks the row again as the first left it (READ COMMITTED re-evaluates
// the WHERE on the new version), finds it leased, and passes over it; no attempt is taken twice.
// (FOR UPDATE SKIP LOCKED cannot sit beside the window functions of the pick.)

import type { PgDb } from '../database/postgres/pg-db.js';
import {
  type AttemptRow,
  attemptValues,
  fairPick,
  nextAttemptSql,
  type DeliveryRow as Row,
  toDelivery,
  toHistories,
} from './delivery-rows.js';
import type { AttemptRecord, ClaimRoom, DeliveryStore } from './delivery-store.js';
import { receivingHost } from './receiving-host.js';

export class PgDeliveryStore implements DeliveryStore {
  constructor(private readonly db: PgDb) {}

  async subscribe(jobId: string, userId: number, url: string, now: number) {
    await this.db.changes(
      `INSERT INTO webhook_deliveries (job_id, user_id, url, host, state, attempts, created_at)
       VALUES ($1, $2, $3, $4, 'waiting', 0, $5)`,
      [jobId, userId, url, receivingHost(url), now],
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

  async claimDue(now: number, leaseUntil: number, room: ClaimRoom) {
    const rows = await this.db.rows<Row & { due_at: string }>(
      `WITH picked AS (${fairPick(
        'next_attempt_at <= $2 AND user_id <> ALL ($4::integer[]) AND host <> ALL ($5::text[])',
      )} LIMIT $3)
       UPDATE webhook_deliveries AS d SET attempts = attempts + 1, next_attempt_at = $1
       FROM picked WHERE d.job_id = picked.job_id AND d.state = 'due' AND d.next_attempt_at <= $2
       RETURNING d.*, picked.next_attempt_at AS due_at`,
      [leaseUntil, now, room.limit, room.skipUsers, room.skipHosts],
    );
    // The pick's order, oldest first, as SQLite's claim returns it.
    return rows
      .sort((a, b) => Number(a.due_at) - Number(b.due_at) || (a.job_id < b.job_id ? -1 : 1))
      .map(toDelivery);
  }

  async nextAttemptAfter(now: number) {
    const [row] = await this.db.rows<{ at: string | null }>(nextAttemptSql('$1'), [now]);
    return row?.at == null ? undefined : Number(row.at);
  }

  async settle(
    jobId: string,
    outcome: { state: 'delivered' | 'failed' } | { state: 'due'; retryAt: number },
    attempt: AttemptRecord,
  ) {
    // One statement, so the outcome and its record are kept together.
    await this.db.changes(
      `WITH settled AS (
         UPDATE webhook_deliveries SET state = $1, next_attempt_at = $2 WHERE job_id = $3
       )
       INSERT INTO webhook_attempts (job_id, number, at, status, error, body_start)
       VALUES ($3, $4, $5, $6, $7, $8) ON CONFLICT (job_id, number) DO NOTHING`,
      [outcome.state, outcome.state === 'due' ? outcome.retryAt : null, jobId, ...attemptValues(attempt)],
    );
  }

  async recent(userId: number, limit: number) {
    const rows = await this.db.rows<Row>(
      'SELECT * FROM webhook_deliveries WHERE user_id = $1 ORDER BY created_at DESC, job_id DESC LIMIT $2',
      [userId, limit],
    );
    const attempts = await this.db.rows<AttemptRow>(
      'SELECT * FROM webhook_attempts WHERE job_id = ANY ($1::text[])',
      [rows.map((row) => row.job_id)],
    );
    return toHistories(rows, attempts);
  }

  async sendAgain(jobId: string, userId: number, now: number) {
    const changed = await this.db.changes(
      `UPDATE webhook_deliveries SET state = 'due', next_attempt_at = $1
        WHERE job_id = $2 AND user_id = $3 AND state IN ('delivered', 'failed')`,
      [now, jobId, userId],
    );
    return changed === 1;
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
