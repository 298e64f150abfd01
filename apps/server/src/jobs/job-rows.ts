// What both JobStore backends (sqlite-job-store.ts, pg-job-store.ts) share
// about the `jobs` table: a row read back as a JobRecord, and the `cursor` of a list page.
import type { JobError, JobRecord } from './job-store.js';

/** A row of `jobs` as a driver returns it: PostgreSQL's BIGINT columns arrive as strings. */
export interface JobRow {
  id: string;
  user_id: number;
  operation: JobRecord['operation'];
  mode: JobRecord['mode'];
  request_id: string | null;
  status: JobRecord['status'];
  attempts: number;
  /** JSON, as are result and error. */
  input: string;
  result: string | null;
  error: string | null;
  created_at: number | string;
  /** Null where a server before queue times stored the job. */
  queued_at: number | string | null;
  started_at: number | string | null;
  finished_at: number | string | null;
}

const time = (value: number | string | null) => (value === null ? null : Number(value));

export function jobFromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    userId: row.user_id,
    operation: row.operation,
    mode: row.mode,
    requestId: row.request_id ?? undefined,
    status: row.status,
    attempts: row.attempts,
    input: JSON.parse(row.input) as JobRecord['input'],
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error: row.error === null ? null : (JSON.parse(row.error) as JobError),
    createdAt: Number(row.created_at),
    queuedAt: time(row.queued_at) ?? Number(row.created_at),
    startedAt: time(row.started_at),
    finishedAt: time(row.finished_at),
  };
}

/** A page's cursor: the submission number (`seq`) of its last job, in base64url so nobody builds one by hand. */
export const encodeCursor = (seq: number): string => Buffer.from(`s${seq}`).toString('base64url');

/** The `seq` a cursor names; undefined when no store made it. */
export function decodeCursor(cursor: string): number | undefined {
  const match = /^s([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
