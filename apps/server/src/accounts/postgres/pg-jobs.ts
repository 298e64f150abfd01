// JobStore over PostgreSQL (jobs/job-store.contract.ts), the same rows as sqlite/sqlite-jobs.ts, shared
// by every process of a deployment. Each write is one statement (or recover()'s one transaction), and
// claimNext() picks and starts a job in one statement whose pick is FOR UPDATE SKIP LOCKED: two claims
// at once take two different jobs, never one twice.
//
// The jobs are one queue for every process on this database: their inputs are in the bucket
// (storage/s3/s3-input-store.ts) and their ends reach the processes waiting on them over BullMQ
// (jobs/bullmq-dispatch.ts), so whichever API process claims a job hands it to whichever worker is
// free. A worker killed mid-job is BullMQ's to recover (its stalled-job check), not recover()'s.
import { decodeCursor, encodeCursor, type JobRow, jobFromRow } from '../../jobs/job-rows.js';
import type {
  JobError,
  JobListQuery,
  JobOutcome,
  JobPage,
  JobRecord,
  JobStore,
  NewJob,
  QueuedJobs,
  Recovery,
  Requeued,
} from '../../jobs/job-store.js';
import { UnfinishedJobsCapReached } from '../../jobs/job-store.js';
import { num, type PgDb, type Sql } from './pg-db.js';

/** `seq` orders submissions (list cursors). */
type Row = JobRow & { seq: string };

const UNFINISHED = "status IN ('queued', 'running')";
const COUNT_QUEUED =
  "SELECT operation, mode, COUNT(*) AS count FROM jobs WHERE status = 'queued' GROUP BY operation, mode";
/** The advisory lock of a user's submissions: namespace "pdnj", the user id as key. */
const submitLock = (userId: number) => ({ namespace: 0x70646e6a, key: userId });

async function unfinishedOf(sql: Sql, userId: number): Promise<number> {
  const [row] = await sql.rows<{ n: string }>(
    `SELECT COUNT(*) AS n FROM jobs WHERE user_id = $1 AND ${UNFINISHED}`,
    [userId],
  );
  return num(row?.n ?? 0);
}

const ids = async (sql: Sql, text: string, params: readonly unknown[]) =>
  (await sql.rows<{ id: string }>(`${text} RETURNING id`, params)).map((row) => row.id);

export class PgJobs implements JobStore {
  constructor(private readonly db: PgDb) {}

  async create(job: NewJob, now: number, cap?: number): Promise<JobRecord> {
    const insert = (sql: Sql) =>
      sql.rows<Row>(
        `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6) RETURNING *`,
        [job.id, job.userId, job.operation, job.mode, JSON.stringify(job.input), now],
      );
    if (cap === undefined) return jobFromRow((await insert(this.db))[0] as Row);
    // The user's capped submissions take turns (a transaction-level advisory lock, as rate windows
    // do, STYLE.md 15): each counts only after the one before it has committed its insert.
    const [row] = await this.db.lockedTransaction(submitLock(job.userId), async (sql) => {
      const unfinished = await unfinishedOf(sql, job.userId);
      if (unfinished >= cap) throw new UnfinishedJobsCapReached(unfinished);
      return insert(sql);
    });
    return jobFromRow(row as Row);
  }

  async startNow(job: NewJob, now: number): Promise<JobRecord | undefined> {
    // One statement: the look for a queued job and the insert see the same snapshot.
    const [row] = await this.db.rows<Row>(
      `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at, attempts, started_at, start_seq)
       SELECT $1, $2, $3, $4, 'running', $5, $6, 1, $6, nextval('job_starts')
        WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE status = 'queued') RETURNING *`,
      [job.id, job.userId, job.operation, job.mode, JSON.stringify(job.input), now],
    );
    return row === undefined ? undefined : jobFromRow(row);
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

  countUnfinished(userId: number): Promise<number> {
    return unfinishedOf(this.db, userId);
  }

  async claimNext(now: number): Promise<JobRecord | undefined> {
    // The fair pick: users whose last start is oldest first, those
    // who never started one before all (NULLS FIRST), then submission order. A job another claim has locked is skipped, and one it has
    // just started fails the re-check of `status`: the next in order is taken instead.
    const [row] = await this.db.rows<Row>(
      `WITH picked AS (
         SELECT seq FROM jobs j WHERE status = 'queued'
          ORDER BY (SELECT MAX(start_seq) FROM jobs s WHERE s.user_id = j.user_id) ASC NULLS FIRST, seq ASC
          LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = $1,
              start_seq = nextval('job_starts')
         FROM picked WHERE jobs.seq = picked.seq RETURNING jobs.*`,
      [now],
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

  async restart(id: string, now: number): Promise<JobRecord | undefined> {
    const [row] = await this.db.rows<Row>(
      `UPDATE jobs SET attempts = attempts + 1, started_at = $2
        WHERE id = $1 AND status = 'running' RETURNING *`,
      [id, now],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async runningIds(before: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(
      "SELECT id FROM jobs WHERE status = 'running' AND started_at <= $1",
      [before],
    );
    return rows.map((row) => row.id);
  }

  async requeue(lostIds: readonly string[], before: number, maxAttempts: number): Promise<Requeued> {
    const lost = "id = ANY($1) AND status = 'running' AND started_at <= $2";
    return this.db.transaction(async (sql) => ({
      requeued: await ids(sql, `UPDATE jobs SET status = 'queued' WHERE ${lost} AND attempts < $3`, [
        lostIds,
        before,
        maxAttempts,
      ]),
      spent: (
        await sql.rows<{ id: string }>(`SELECT id FROM jobs WHERE ${lost} AND attempts >= $3`, [
          lostIds,
          before,
          maxAttempts,
        ])
      ).map((row) => row.id),
    }));
  }

  async recover(maxAttempts: number, interruptedError: JobError, now: number): Promise<Recovery> {
    // As in SQLite, for a dispatch that claims from this store in one process (jobs/local-dispatch.ts):
    // every running job was that process's. The shared backends never call it (see the top).
    return this.db.transaction(async (sql) => ({
      canceled: await ids(
        sql,
        `UPDATE jobs SET status = 'canceled', finished_at = $1 WHERE mode = 'sync' AND ${UNFINISHED}`,
        [now],
      ),
      failed: await ids(
        sql,
        `UPDATE jobs SET status = 'failed', error = $1, finished_at = $2
          WHERE status = 'running' AND attempts >= $3`,
        [JSON.stringify(interruptedError), now, maxAttempts],
      ),
      requeued: await ids(sql, "UPDATE jobs SET status = 'queued' WHERE status = 'running'", []),
    }));
  }

  async forget(before: number): Promise<string[]> {
    return ids(this.db, 'DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at <= $1', [before]);
  }

  async unfinishedIds(): Promise<string[]> {
    return (await this.db.rows<{ id: string }>(`SELECT id FROM jobs WHERE ${UNFINISHED}`)).map(
      (row) => row.id,
    );
  }

  async countQueued(): Promise<QueuedJobs[]> {
    const rows = await this.db.rows<Omit<QueuedJobs, 'count'> & { count: string }>(COUNT_QUEUED);
    return rows.map((row) => ({ ...row, count: num(row.count) }));
  }
}
