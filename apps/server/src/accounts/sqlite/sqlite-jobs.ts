// JobStore over SQLite (jobs/job-store.contract.ts): one row of `jobs` per job, in the accounts
// database. better-sqlite3 is synchronous and each write below is one statement or one immediate
// transaction, so a claim cannot hand the same job out twice, even to another process. A write with
// RETURNING outside a transaction is read with all(), never get(): get() stops at the first row, and
// the commit that follows can fail (SQLITE_FULL on a full disk) without a word, losing the row.
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
import type { Db } from './database.js';

/** `seq` orders submissions (list cursors). */
type Row = JobRow & { seq: number };

const UNFINISHED = "status IN ('queued', 'running')";

export class SqliteJobs implements JobStore {
  private readonly claimTx: (now: number) => Row | undefined;
  private readonly recoverTx: (
    maxAttempts: number,
    error: string,
    now: number,
    callersGone: boolean,
  ) => Recovery;
  private readonly forgetTx: (before: number) => string[];

  constructor(private readonly db: Db) {
    // The fair pick: users whose last start is oldest first (SQLite sorts NULL, never started, first),
    // then submission order.
    const next = db.prepare(
      `SELECT seq FROM jobs j WHERE status = 'queued'
        ORDER BY (SELECT MAX(start_seq) FROM jobs s WHERE s.user_id = j.user_id) ASC, seq ASC LIMIT 1`,
    );
    const start = db.prepare(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = @now,
         start_seq = (SELECT COALESCE(MAX(start_seq), 0) + 1 FROM jobs)
        WHERE seq = @seq RETURNING *`,
    );
    const claim = db.transaction((now: number) => {
      const picked = next.get() as { seq: number } | undefined;
      return picked === undefined ? undefined : (start.get({ seq: picked.seq, now }) as Row);
    });
    this.claimTx = (now) => claim.immediate(now);

    const recover = db.transaction(
      (maxAttempts: number, error: string, now: number, callersGone: boolean): Recovery => {
        const ids = (sql: string, params: Record<string, unknown>) =>
          (db.prepare(`${sql} RETURNING id`).all(params) as { id: string }[]).map((row) => row.id);
        return {
          canceled: ids(
            `UPDATE jobs SET status = 'canceled', finished_at = @now
            WHERE @callersGone = 1 AND mode = 'sync' AND ${UNFINISHED}`,
            { now, callersGone: callersGone ? 1 : 0 },
          ),
          failed: ids(
            `UPDATE jobs SET status = 'failed', error = @error, finished_at = @now
            WHERE status = 'running' AND attempts >= @maxAttempts`,
            { error, now, maxAttempts },
          ),
          requeued: ids("UPDATE jobs SET status = 'queued' WHERE status = 'running'", {}),
        };
      },
    );
    this.recoverTx = (maxAttempts, error, now, callersGone) =>
      recover.immediate(maxAttempts, error, now, callersGone);

    const forget = db.transaction((before: number) =>
      (
        db
          .prepare(`DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at <= ? RETURNING id`)
          .all(before) as { id: string }[]
      ).map((row) => row.id),
    );
    this.forgetTx = (before) => forget.immediate(before);
  }

  async create(job: NewJob, now: number): Promise<JobRecord> {
    const row = this.db
      .prepare(
        `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at)
         VALUES (@id, @userId, @operation, @mode, 'queued', @input, @now) RETURNING *`,
      )
      .all({ ...job, input: JSON.stringify(job.input), now })[0] as Row;
    return jobFromRow(row);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? undefined : jobFromRow(row);
  }

  async list(userId: number, query: JobListQuery): Promise<JobPage | undefined> {
    const before = query.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(query.cursor);
    if (before === undefined) return undefined;
    const rows = this.db
      .prepare(
        `SELECT * FROM jobs WHERE user_id = @userId AND seq < @before
           AND (@status IS NULL OR status = @status)
         ORDER BY seq DESC LIMIT @take`,
      )
      .all({ userId, before, status: query.status ?? null, take: query.limit + 1 }) as Row[];
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      jobs: page.map(jobFromRow),
      next: rows.length > query.limit && last !== undefined ? encodeCursor(last.seq) : null,
    };
  }

  async countUnfinished(userId: number): Promise<number> {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM jobs WHERE user_id = ? AND ${UNFINISHED}`)
      .get(userId) as { n: number };
    return row.n;
  }

  async claimNext(now: number): Promise<JobRecord | undefined> {
    const row = this.claimTx(now);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined> {
    const row = this.db
      .prepare(
        `UPDATE jobs SET status = @status, result = @result, error = @error, finished_at = @now
          WHERE id = @id AND ${UNFINISHED} RETURNING *`,
      )
      .all({
        id,
        now,
        status: outcome.status,
        result: outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
        error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      })[0] as Row | undefined;
    return row === undefined ? undefined : jobFromRow(row);
  }

  async release(id: string): Promise<void> {
    this.db
      .prepare(
        "UPDATE jobs SET status = 'queued', attempts = attempts - 1 WHERE id = ? AND status = 'running'",
      )
      .run(id);
  }

  async recover(
    maxAttempts: number,
    interruptedError: JobError,
    now: number,
    callersGone: boolean,
  ): Promise<Recovery> {
    return this.recoverTx(maxAttempts, JSON.stringify(interruptedError), now, callersGone);
  }

  async forget(before: number): Promise<string[]> {
    return this.forgetTx(before);
  }

  async unfinishedIds(): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM jobs WHERE ${UNFINISHED}`).all() as { id: string }[]).map(
      (row) => row.id,
    );
  }
}
