// Rows of idempotency_keys as both SQL backends read them (sqlite-idempotency-store.ts, pg-idempotency-store.ts).
// created_at is milliseconds: a number from SQLite, a BIGINT string from node-postgres.
import type { IdempotencyRecord } from './idempotency-store.js';

export interface IdempotencyRow {
  user_id: number;
  key: string;
  token: string;
  fingerprint: string | null;
  job_id: string | null;
  created_at: number | string;
}

export function toIdempotencyRecord(row: IdempotencyRow): IdempotencyRecord {
  return {
    userId: row.user_id,
    key: row.key,
    token: row.token,
    fingerprint: row.fingerprint,
    jobId: row.job_id,
    createdAt: Number(row.created_at),
  };
}
