// JobStore over PostgreSQL (jobs/job-store.contract.ts), the same rows as sqlite/sqlite-jobs.ts, shared
// by every process of a deployment. Each write is one statement (or recover()'s one transaction), and
// claimNext() picks and starts a job in one statement whose pick is FOR UPDATE SKIP LOCKED: two claims
// at once take two different jobs, never one twice.
//
// Each job belongs to the data folder (`owner`: host and path) of the process that took it, where its
// input files are and where a synchronous caller waits: only that folder's processes claim it, and
// recover() at start requeues only its jobs, never those other live processes are running. Reading,
// listing and cancelling work from any process (a cancel from another one marks the job canceled
// without stopping its tools). Moving work between processes is issue #16 (workers and roles).
import { decodeCursor, encodeCursor, type JobRow, jobFromRow } from '../../jobs/job-rows.js';
import type {
  JobError,
  JobListQuery,
  JobOutcome,
  JobPage,
  JobRecord,
  JobStore,
  NewJob,
  Recovery,
} from '../../jobs/job-store.js';
import { num, type PgDb, type Sql } from './pg-db.js';

/** `seq` orders submissions (list cursors). */
type Row = JobRow & { seq: string };

const UNFINISHED = "status IN ('queued', 'running')";

const ids = async (sql: Sql, text: string, params: readonly unknown[]) =>
  (await sql.rows<{ id: string }>(`${text} RETURNING id`, params)).map((row) => row.id);

export class PgJobs implements JobStore {
  constructor(
    private readonly db: PgDb,
    private readonly owner: string,
  ) {}

  async create(job: NewJob, now: number): Promise<JobRecord> {
    const [row] = await this.db.rows<Row>(
      `INSERT INTO jobs (id, owner, user_id, operation, mode, status, input, created_at)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7) RETURNING *`,
      [job.id, this.owner, job.userId, job.operation, job.mode, JSON.stringify(job.input), now],
    );
    return jobFromRow(row as Row);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const [row] = await this.db.rows<Row>('SELECT * FROM jobs WHERE id = $1', [id]);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async list(userId: number, query: JobListQuery): Promise<JobPage | undefined> {
    const before = query.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(query.cursor);
    if (before === undefined) return undefined;
    const rows = await this.db.rows<Row>(
      `SELECT * FROM jobs WHERE user_id = $1 AND seq < $2 AND ($3::text IS NULL OR status = $3)
        ORDER BY seq DESC LIMIT $4`,
      [userId, before, query.status ?? null, query.limit + 1],
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      jobs: page.map(jobFromRow),
      next: rows.length > query.limit && last !== undefined ? encodeCursor(num(last.seq)) : null,
    };
  }

  async countUnfinished(userId: number): Promise<number> {
    const [row] = await this.db.rows<{ n: string }>(
      `SELECT COUNT(*) AS n FROM jobs WHERE user_id = $1 AND ${UNFINISHED}`,
      [userId],
    );
    return num(row?.n ?? 0);
  }

  async claimNext(now: number): Promise<JobRecord | undefined> {
    // The fair pick among this folder's jobs: users whose last start (anywhere) is oldest first, those
    // who never started one before all (NULLS FIRST), then submission order. A job another claim has locked is skipped, and one it has
    // just started fails the re-check of `status`: the next in order is taken instead.
    const [row] = await this.db.rows<Row>(
      `WITH picked AS (
         SELECT seq FROM jobs j WHERE owner = $2 AND status = 'queued'
          ORDER BY (SELECT MAX(start_seq) FROM jobs s WHERE s.user_id = j.user_id) ASC NULLS FIRST, seq ASC
          LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = $1,
              start_seq = nextval('job_starts')
         FROM picked WHERE jobs.seq = picked.seq RETURNING jobs.*`,
      [now, this.owner],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined> {
    const [row] = await this.db.rows<Row>(
      `UPDATE jobs SET status = $2, result = $3, error = $4, finished_at = $5
        WHERE id = $1 AND ${UNFINISHED} RETURNING *`,
      [
        id,
        outcome.status,
        outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
        outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
        now,
      ],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async release(id: string): Promise<void> {
    await this.db.changes(
      "UPDATE jobs SET status = 'queued', attempts = attempts - 1 WHERE id = $1 AND status = 'running'",
      [id],
    );
  }

  async recover(
    maxAttempts: number,
    interruptedError: JobError,
    now: number,
    callersGone: boolean,
  ): Promise<Recovery> {
    // This folder's jobs only: another folder's running ones may be in a live process.
    return this.db.transaction(async (sql) => ({
      canceled: await ids(
        sql,
        `UPDATE jobs SET status = 'canceled', finished_at = $2
          WHERE owner = $1 AND $3 AND mode = 'sync' AND ${UNFINISHED}`,
        [this.owner, now, callersGone],
      ),
      failed: await ids(
        sql,
        `UPDATE jobs SET status = 'failed', error = $2, finished_at = $3
          WHERE owner = $1 AND status = 'running' AND attempts >= $4`,
        [this.owner, JSON.stringify(interruptedError), now, maxAttempts],
      ),
      requeued: await ids(sql, "UPDATE jobs SET status = 'queued' WHERE owner = $1 AND status = 'running'", [
        this.owner,
      ]),
    }));
  }

  async forget(before: number): Promise<string[]> {
    return ids(this.db, 'DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at <= $1', [before]);
  }

  async unfinishedIds(): Promise<string[]> {
    // Of this folder: what tells which of its job folders to keep.
    const rows = await this.db.rows<{ id: string }>(
      `SELECT id FROM jobs WHERE owner = $1 AND ${UNFINISHED}`,
      [this.owner],
    );
    return rows.map((row) => row.id);
  }
}
