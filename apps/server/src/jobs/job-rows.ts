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
  /** JSON: the input files' `inline` contents in their order, or null when none has any, or it ended. */
  inline_inputs: string | null;
  result: string | null;
  error: string | null;
  created_at: number | string;
  /** Null where a server before queue times stored the job. */
  queued_at: number | string | null;
  started_at: number | string | null;
  finished_at: number | string | null;
}

const time = (value: number | string | null) => (value === null ? null : Number(value));

/**
 * A job's input as its two columns: `input` without the files' inline contents, and those apart
 * (`inline_inputs`), so the statements that end a job forget them by setting one column to null.
 */
export function inputColumns(input: JobRecord['input']): { input: string; inline: string | null } {
  const files = input.files.map(({ inline: _, ...file }) => file);
  const inline = input.files.map((file) => file.inline ?? null);
  return {
    input: JSON.stringify({ ...input, files }),
    inline: inline.some((contents) => contents !== null) ? JSON.stringify(inline) : null,
  };
}

/** What every statement that ends a job sets: the inputs that travelled inline are dropped with it. */
export const FORGET_INLINE = 'inline_inputs = NULL';

function inputOf(row: JobRow): JobRecord['input'] {
  const input = JSON.parse(row.input) as JobRecord['input'];
  if (!row.inline_inputs) return input;
  const inline = JSON.parse(row.inline_inputs) as (string | null)[];
  return {
    ...input,
    files: input.files.map((file, index) => {
      const contents = inline[index];
      return contents === null || contents === undefined ? file : { ...file, inline: contents };
    }),
  };
}

export function jobFromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    userId: row.user_id,
    operation: row.operation,
    mode: row.mode,
    requestId: row.request_id ?? undefined,
    status: row.status,
    attempts: row.attempts,
    input: inputOf(row),
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
