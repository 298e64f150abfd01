// Rows of webhook_deliveries as both SQL backends read them (accounts/sqlite/, accounts/postgres/).
// Times are milliseconds: SQLite returns numbers, node-postgres BIGINT as strings; Number() takes both.
import type { Delivery } from './delivery-store.js';

export interface DeliveryRow {
  job_id: string;
  user_id: number;
  url: string;
  state: Delivery['state'];
  event_id: string | null;
  body: string | null;
  attempts: number;
  next_attempt_at: number | string | null;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    jobId: row.job_id,
    userId: row.user_id,
    url: row.url,
    state: row.state,
    eventId: row.event_id,
    body: row.body,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  };
}
