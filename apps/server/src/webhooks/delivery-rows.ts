// Rows of webhook_deliveries as both SQL backends read them (sqlite-delivery-store.ts, pg-delivery-store.ts).
// Times are milliseconds: SQLite returns numbers, node-postgres BIGINT as strings; Number() takes both.
import type { AttemptRecord, Delivery, DeliveryHistory } from './delivery-store.js';

export interface DeliveryRow {
  job_id: string;
  user_id: number;
  url: string;
  host: string;
  state: Delivery['state'];
  event_id: string | null;
  body: string | null;
  attempts: number;
  next_attempt_at: number | string | null;
  created_at: number | string;
}

export interface AttemptRow {
  job_id: string;
  number: number;
  at: number | string;
  status: number | null;
  error: string | null;
  body_start: string | null;
}

/** The values of an attempt's row after its job id: number, at, status, error, body_start. */
export function attemptValues(attempt: AttemptRecord): (number | string | null)[] {
  const { result } = attempt;
  return 'status' in result
    ? [attempt.number, attempt.at, result.status, null, result.bodyStart]
    : [attempt.number, attempt.at, null, result.error, null];
}

function toAttempt(row: AttemptRow): AttemptRecord {
  return {
    number: row.number,
    at: Number(row.at),
    result:
      row.status === null
        ? { error: row.error ?? '' }
        : { status: row.status, bodyStart: row.body_start ?? '' },
  };
}

/** Deliveries with their attempts, which come in any order of jobs, each job's by number. */
export function toHistories(
  rows: readonly DeliveryRow[],
  attempts: readonly AttemptRow[],
): DeliveryHistory[] {
  return rows.map((row) => ({
    ...toDelivery(row),
    createdAt: Number(row.created_at),
    attemptLog: attempts
      .filter((attempt) => attempt.job_id === row.job_id)
      .map(toAttempt)
      .sort((a, b) => a.number - b.number),
  }));
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    jobId: row.job_id,
    userId: row.user_id,
    url: row.url,
    host: row.host,
    state: row.state,
    eventId: row.event_id,
    body: row.body,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  };
}

/**
 * The fair pick both stores claim from (DeliveryStore.claimDue): of the due deliveries that pass
 * `filter` (each store's time and skip lists, in its own placeholders), those that are the oldest of
 * their user and the oldest of their receiving host, as `job_id` and `next_attempt_at`. The globally
 * oldest always qualifies, so a claim over any due delivery takes at least one.
 */
export function fairPick(filter: string): string {
  return `SELECT job_id, next_attempt_at FROM (
      SELECT job_id, next_attempt_at,
        ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY next_attempt_at, job_id) AS nth_of_user,
        ROW_NUMBER() OVER (PARTITION BY host ORDER BY next_attempt_at, job_id) AS nth_of_host
      FROM webhook_deliveries WHERE state = 'due' AND ${filter}) AS ready
    WHERE nth_of_user = 1 AND nth_of_host = 1
    ORDER BY next_attempt_at, job_id`;
}

/** The soonest due time after a moment, in each store's placeholder for it. */
export function nextAttemptSql(placeholder: string): string {
  return `SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries
    WHERE state = 'due' AND next_attempt_at > ${placeholder}`;
}
