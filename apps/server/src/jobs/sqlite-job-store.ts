// JobStore over SQLite (job-store.contract.ts): one row of `jobs` per job, in the data folder's
// database. better-sqlite3 is synchronous and each write below is one statement or one immediate
// transaction, so a claim cannot hand the same job out twice, even to another process. A write with
// RETURNING outside a transaction is read with all(), never get(): get() stops at the first row, and
// the commit that follows can fail (SQLITE_FULL on a full disk) without a word, losing the row.

import type { Db } from '../database/sqlite/sqlite-database.js';
import { keepOutputRow } from '../storage/sqlite-output-rows.js';
import {
  decodeCursor,
  encodeCursor,
  FORGET_INLINE,
  inputColumns,
  type JobRow,
  jobFromRow,
} from './job-rows.js';
import type {
  JobError,
  JobListQuery,
  JobOutcome,
  JobPage,
  JobRecord,
  JobStore,
  NewJob,
  RecentDuration,
  Recovery,
  Requeued,
  UnfinishedJobs,
  UserWork,
} from './job-store.js';
import { UnfinishedJobsCapReached } from './job-store.js';

/** `seq` orders submissions (list cursors). */
type Row = JobRow & { seq: number };

const UNFINISHED = "status IN ('queued', 'running')";
const COUNT_UNFINISHED = `SELECT j.user_id AS userId, u.plan AS plan, j.operation, j.mode, j.status, COUNT(*) AS count
  FROM jobs j JOIN users u ON u.id = j.user_id WHERE j.${UNFINISHED}
  GROUP BY j.user_id, j.operation, j.mode, j.status`;
const USERS_WITH_WORK = `SELECT j.user_id AS userId, u.plan AS plan,
    SUM(j.status = 'queued') AS queued, SUM(j.status = 'running') AS running,
    (SELECT MAX(start_seq) FROM jobs s WHERE s.user_id = j.user_id) AS lastStart
  FROM jobs j JOIN users u ON u.id = j.user_id WHERE j.${UNFINISHED} GROUP BY j.user_id, u.plan`;
const RECENT_DURATIONS = `SELECT operation, AVG(finished_at - started_at) AS meanMs, COUNT(*) AS count FROM jobs
  WHERE finished_at >= ? AND started_at IS NOT NULL AND status IN ('succeeded', 'failed') GROUP BY operation`;

/** A new job's columns as the INSERTs bind them. */
function bound(job: NewJob, now: number) {
  const { id, userId, operation, mode } = job;
  const { input, inline } = inputColumns(job.input);
  return {
    id,
    userId,
    operation,
    mode,
    input,
    inline,
    requestId: job.requestId ?? null,
    now,
  };
}

export class SqliteJobStore implements JobStore {
  private readonly claimTx: (userId: number, now: number) => Row | undefined;
  private readonly recoverTx: (maxAttempts: number, error: string, now: number) => Recovery;
  private readonly forgetTx: (before: number) => string[];
  private readonly requeueTx: (ids: string, before: number, maxAttempts: number, now: number) => Requeued;
  private readonly createTx: (job: NewJob, now: number, cap: number | undefined) => Row;
  private readonly startNowRows: (job: NewJob, now: number, slots: number) => Row[];

  constructor(private readonly db: Db) {
    const oldest = db.prepare(
      "SELECT seq FROM jobs WHERE user_id = @userId AND status = 'queued' ORDER BY seq LIMIT 1",
    );
    const start = db.prepare(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = @now,
         start_seq = (SELECT COALESCE(MAX(start_seq), 0) + 1 FROM jobs)
        WHERE seq = @seq RETURNING *`,
    );
    const claim = db.transaction((userId: number, now: number) => {
      const picked = oldest.get({ userId }) as { seq: number } | undefined;
      return picked === undefined ? undefined : (start.get({ seq: picked.seq, now }) as Row);
    });
    this.claimTx = (userId, now) => claim.immediate(userId, now);

    const recover = db.transaction((maxAttempts: number, error: string, now: number): Recovery => {
      const ids = (sql: string, params: Record<string, unknown>) =>
        (db.prepare(`${sql} RETURNING id`).all(params) as { id: string }[]).map((row) => row.id);
      return {
        canceled: ids(
          `UPDATE jobs SET status = 'canceled', finished_at = @now, ${FORGET_INLINE} WHERE mode = 'sync' AND ${UNFINISHED}`,
          { now },
        ),
        failed: ids(
          `UPDATE jobs SET status = 'failed', error = @error, finished_at = @now, ${FORGET_INLINE}
            WHERE status = 'running' AND attempts >= @maxAttempts`,
          { error, now, maxAttempts },
        ),
        requeued: ids("UPDATE jobs SET status = 'queued', queued_at = @now WHERE status = 'running'", {
          now,
        }),
      };
    });
    this.recoverTx = (maxAttempts, error, now) => recover.immediate(maxAttempts, error, now);

    const lost = "id IN (SELECT value FROM json_each(@ids)) AND status = 'running' AND started_at <= @before";
    const requeue = db.transaction(
      (ids: string, before: number, maxAttempts: number, now: number): Requeued => {
        const params = { ids, before, maxAttempts, now };
        const idsOf = (rows: unknown[]) => (rows as { id: string }[]).map((row) => row.id);
        return {
          requeued: idsOf(
            db
              .prepare(
                `UPDATE jobs SET status = 'queued', queued_at = @now WHERE ${lost} AND attempts < @maxAttempts RETURNING id`,
              )
              .all(params),
          ),
          spent: idsOf(
            db
              .prepare(`SELECT id FROM jobs WHERE ${lost} AND attempts >= @maxAttempts`)
              .all({ ids, before, maxAttempts }),
          ),
        };
      },
    );
    this.requeueTx = (ids, before, maxAttempts, now) => requeue.immediate(ids, before, maxAttempts, now);

    const forget = db.transaction((before: number) =>
      (
        db
          .prepare(`DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at <= ? RETURNING id`)
          .all(before) as { id: string }[]
      ).map((row) => row.id),
    );
    this.forgetTx = (before) => forget.immediate(before);

    const insert = db.prepare(
      `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at, queued_at, request_id, inline_inputs)
       VALUES (@id, @userId, @operation, @mode, 'queued', @input, @now, @now, @requestId, @inline) RETURNING *`,
    );
    // Counted and stored in one immediate transaction: no other connection writes in between.
    const create = db.transaction((job: NewJob, now: number, cap: number | undefined) => {
      if (cap !== undefined) {
        const unfinished = this.unfinishedOf(job.userId);
        if (unfinished >= cap) throw new UnfinishedJobsCapReached(unfinished);
      }
      return insert.get(bound(job, now)) as Row;
    });
    this.createTx = (job, now, cap) => create.immediate(job, now, cap);
    // One statement, so the looks at the queue and the insert are one write.
    const startNow = db.prepare(
      `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at, queued_at, request_id, inline_inputs, attempts, started_at, start_seq)
       SELECT @id, @userId, @operation, @mode, 'running', @input, @now, @now, @requestId, @inline, 1, @now,
              (SELECT COALESCE(MAX(start_seq), 0) + 1 FROM jobs)
        WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE status = 'queued')
          AND (SELECT COUNT(*) FROM jobs WHERE status = 'running') < @slots RETURNING *`,
    );
    this.startNowRows = (job, now, slots) => startNow.all({ ...bound(job, now), slots }) as Row[];
  }

  async startNow(job: NewJob, now: number, slots: number): Promise<JobRecord | undefined> {
    const [row] = this.startNowRows(job, now, slots);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async create(job: NewJob, now: number, cap?: number): Promise<JobRecord> {
    return jobFromRow(this.createTx(job, now, cap));
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? undefined : jobFromRow(row);
  }

  async getMany(ids: readonly string[]): Promise<JobRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM jobs WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids)) as Row[];
    return rows.map(jobFromRow);
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
    return this.unfinishedOf(userId);
  }

  private unfinishedOf(userId: number): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM jobs WHERE user_id = ? AND ${UNFINISHED}`)
      .get(userId) as { n: number };
    return row.n;
  }

  async usersWithWork(): Promise<UserWork[]> {
    return this.db.prepare(USERS_WITH_WORK).all() as UserWork[];
  }

  async claimOldest(userId: number, now: number): Promise<JobRecord | undefined> {
    const row = this.claimTx(userId, now);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined> {
    const outputs = outcome.status === 'succeeded' ? (outcome.outputs ?? []) : [];
    const end = () =>
      this.db
        .prepare(
          `UPDATE jobs SET status = @status, result = @result, error = @error, finished_at = @now, ${FORGET_INLINE}
            WHERE id = @id AND ${UNFINISHED} RETURNING *`,
        )
        .all({
          id,
          now,
          status: outcome.status,
          result: outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
          error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
        })[0] as Row | undefined;
    // The end and its small outputs together, or neither.
    const row =
      outputs.length === 0
        ? end()
        : this.db.transaction(() => {
            const ended = end();
            if (ended !== undefined) for (const output of outputs) keepOutputRow(this.db, output);
            return ended;
          })();
    return row === undefined ? undefined : jobFromRow(row);
  }

  async withdraw(id: string, now: number): Promise<JobRecord | undefined> {
    const [row] = this.db
      .prepare(
        `UPDATE jobs SET status = 'canceled', finished_at = ?, ${FORGET_INLINE}
          WHERE id = ? AND status = 'queued' AND started_at IS NULL RETURNING *`,
      )
      .all(now, id) as Row[];
    return row === undefined ? undefined : jobFromRow(row);
  }

  async release(id: string, queuedAt: number): Promise<void> {
    this.db
      .prepare(
        "UPDATE jobs SET status = 'queued', attempts = attempts - 1, queued_at = ? WHERE id = ? AND status = 'running'",
      )
      .run(queuedAt, id);
  }

  async restart(id: string, now: number): Promise<JobRecord | undefined> {
    const [row] = this.db
      .prepare(
        "UPDATE jobs SET attempts = attempts + 1, started_at = ? WHERE id = ? AND status = 'running' RETURNING *",
      )
      .all(now, id) as Row[];
    return row === undefined ? undefined : jobFromRow(row);
  }

  async runningIds(before: number): Promise<string[]> {
    return (
      this.db.prepare("SELECT id FROM jobs WHERE status = 'running' AND started_at <= ?").all(before) as {
        id: string;
      }[]
    ).map((row) => row.id);
  }

  async requeue(ids: readonly string[], before: number, maxAttempts: number, now: number): Promise<Requeued> {
    return this.requeueTx(JSON.stringify(ids), before, maxAttempts, now);
  }

  async recover(maxAttempts: number, interruptedError: JobError, now: number): Promise<Recovery> {
    return this.recoverTx(maxAttempts, JSON.stringify(interruptedError), now);
  }

  async forget(before: number): Promise<string[]> {
    return this.forgetTx(before);
  }

  async unfinishedIds(): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM jobs WHERE ${UNFINISHED}`).all() as { id: string }[]).map(
      (row) => row.id,
    );
  }

  async unfinishedCounts(): Promise<UnfinishedJobs[]> {
    return this.db.prepare(COUNT_UNFINISHED).all() as UnfinishedJobs[];
  }

  async recentDurations(since: number): Promise<RecentDuration[]> {
    return this.db.prepare(RECENT_DURATIONS).all(since) as RecentDuration[];
  }
}
