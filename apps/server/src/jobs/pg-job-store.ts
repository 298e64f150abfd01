// JobStore over PostgreSQL (job-store.contract.ts), the same rows as sqlite-job-store.ts, shared
// by every process of a deployment. Each write is one statement (or recover()'s one transaction), and
// claimNext() picks and starts a job in one statement whose pick is FOR UPDATE SKIP LOCKED: two claims
// at once take two different jobs, never one twice.
//
// The jobs are one queue for every process on this database: their inputs are in the bucket
// (storage/s3/s3-input-store.ts) and their ends reach the processes waiting on them over BullMQ
// (bullmq/), so whichever API process claims a job hands it to whichever worker is
// free. A worker killed mid-job is BullMQ's to recover (its stalled-job check), not recover()'s.

import { num, type PgDb, type Sql } from '../database/postgres/pg-db.js';
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
  JobOperation,
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
type Row = JobRow & { seq: string };

const UNFINISHED = "status IN ('queued', 'running')";
const FINISH = `UPDATE jobs SET status = $2, result = $3, error = $4, finished_at = $5, ${FORGET_INLINE}
  WHERE id = $1 AND ${UNFINISHED} RETURNING *`;
/**
 * The end and the small outputs its result names in one statement: one round trip, and the outputs
 * kept only when the job ended here (pg_stat_statements counts it once).
 */
const FINISH_KEEPING_OUTPUTS = `WITH ended AS (${FINISH}),
  kept AS (
    INSERT INTO small_outputs (id, filename, size, expires_at, body)
    SELECT * FROM unnest($6::text[], $7::text[], $8::integer[], $9::bigint[], $10::bytea[])
     WHERE EXISTS (SELECT 1 FROM ended)
    ON CONFLICT (id) DO UPDATE SET filename = EXCLUDED.filename, size = EXCLUDED.size,
      expires_at = EXCLUDED.expires_at, body = EXCLUDED.body
  )
  SELECT * FROM ended`;
const COUNT_UNFINISHED = `SELECT j.user_id, u.plan, j.operation, j.mode, j.status, COUNT(*) AS count
  FROM jobs j JOIN users u ON u.id = j.user_id WHERE j.${UNFINISHED}
  GROUP BY j.user_id, u.plan, j.operation, j.mode, j.status`;
const USERS_WITH_WORK = `SELECT j.user_id, u.plan,
    COUNT(*) FILTER (WHERE j.status = 'queued') AS queued,
    COUNT(*) FILTER (WHERE j.status = 'running') AS running,
    (SELECT MAX(start_seq) FROM jobs s WHERE s.user_id = j.user_id) AS last_start
  FROM jobs j JOIN users u ON u.id = j.user_id WHERE j.${UNFINISHED} GROUP BY j.user_id, u.plan`;
const RECENT_DURATIONS = `SELECT operation, AVG(finished_at - started_at) AS mean_ms, COUNT(*) AS count FROM jobs
  WHERE finished_at >= $1 AND started_at IS NOT NULL AND status IN ('succeeded', 'failed') GROUP BY operation`;
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

/** A new job's columns as the INSERTs bind them, $1 to $8. */
function columns(job: NewJob, now: number): unknown[] {
  const { input, inline } = inputColumns(job.input);
  return [job.id, job.userId, job.operation, job.mode, input, now, job.requestId ?? null, inline];
}

export class PgJobStore implements JobStore {
  constructor(private readonly db: PgDb) {}

  async create(job: NewJob, now: number, cap?: number): Promise<JobRecord> {
    const insert = (sql: Sql) =>
      sql.rows<Row>(
        `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at, queued_at, request_id, inline_inputs)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $6, $7, $8) RETURNING *`,
        columns(job, now),
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

  async startNow(job: NewJob, now: number, slots: number): Promise<JobRecord | undefined> {
    // One statement: the looks at the queue and the insert see the same snapshot.
    const [row] = await this.db.rows<Row>(
      `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at, queued_at, request_id, inline_inputs, attempts, started_at, start_seq)
       SELECT $1, $2, $3, $4, 'running', $5, $6, $6, $7, $8, 1, $6, nextval('job_starts')
        WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE status = 'queued')
          AND (SELECT COUNT(*) FROM jobs WHERE status = 'running') < $9 RETURNING *`,
      [...columns(job, now), slots],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const [row] = await this.db.rows<Row>('SELECT * FROM jobs WHERE id = $1', [id]);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async getMany(ids: readonly string[]): Promise<JobRecord[]> {
    const rows = await this.db.rows<Row>('SELECT * FROM jobs WHERE id = ANY($1::text[])', [ids]);
    return rows.map(jobFromRow);
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

  async usersWithWork(): Promise<UserWork[]> {
    const rows = await this.db.rows<{
      user_id: number;
      plan: UserWork['plan'];
      queued: string;
      running: string;
      last_start: string | null;
    }>(USERS_WITH_WORK);
    return rows.map((row) => ({
      userId: row.user_id,
      plan: row.plan,
      queued: num(row.queued),
      running: num(row.running),
      lastStart: num(row.last_start),
    }));
  }

  async claimOldest(userId: number, now: number): Promise<JobRecord | undefined> {
    // A job another claim has locked is skipped, and one it has just started fails the re-check of
    // `status`: the user's next queued job is taken instead, or none.
    const [row] = await this.db.rows<Row>(
      `WITH picked AS (
         SELECT seq FROM jobs WHERE user_id = $2 AND status = 'queued'
          ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = $1,
              start_seq = nextval('job_starts')
         FROM picked WHERE jobs.seq = picked.seq AND jobs.status = 'queued' RETURNING jobs.*`,
      [now, userId],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined> {
    const ending = [
      id,
      outcome.status,
      outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
      outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      now,
    ];
    const outputs = outcome.status === 'succeeded' ? (outcome.outputs ?? []) : [];
    if (outputs.length === 0) {
      const [row] = await this.db.rows<Row>(FINISH, ending);
      return row === undefined ? undefined : jobFromRow(row);
    }
    const [row] = await this.db.rows<Row>(FINISH_KEEPING_OUTPUTS, [
      ...ending,
      outputs.map(({ meta }) => meta.id),
      outputs.map(({ meta }) => meta.filename),
      outputs.map(({ meta }) => meta.size),
      outputs.map(({ meta }) => meta.expiresAt),
      outputs.map(({ body }) => body),
    ]);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async withdraw(id: string, now: number): Promise<JobRecord | undefined> {
    const [row] = await this.db.rows<Row>(
      `UPDATE jobs SET status = 'canceled', finished_at = $2, ${FORGET_INLINE}
        WHERE id = $1 AND status = 'queued' AND started_at IS NULL RETURNING *`,
      [id, now],
    );
    return row === undefined ? undefined : jobFromRow(row);
  }

  async release(id: string, queuedAt: number): Promise<void> {
    await this.db.changes(
      "UPDATE jobs SET status = 'queued', attempts = attempts - 1, queued_at = $2 WHERE id = $1 AND status = 'running'",
      [id, queuedAt],
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

  async requeue(
    lostIds: readonly string[],
    before: number,
    maxAttempts: number,
    now: number,
  ): Promise<Requeued> {
    const lost = "id = ANY($1) AND status = 'running' AND started_at <= $2";
    return this.db.transaction(async (sql) => ({
      requeued: await ids(
        sql,
        `UPDATE jobs SET status = 'queued', queued_at = $4 WHERE ${lost} AND attempts < $3`,
        [lostIds, before, maxAttempts, now],
      ),
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
    // As in SQLite, for a queue that claims from this store in one process (local-job-queue.ts):
    // every running job was that process's. The shared backends never call it (see the top).
    return this.db.transaction(async (sql) => ({
      canceled: await ids(
        sql,
        `UPDATE jobs SET status = 'canceled', finished_at = $1, ${FORGET_INLINE} WHERE mode = 'sync' AND ${UNFINISHED}`,
        [now],
      ),
      failed: await ids(
        sql,
        `UPDATE jobs SET status = 'failed', error = $1, finished_at = $2, ${FORGET_INLINE}
          WHERE status = 'running' AND attempts >= $3`,
        [JSON.stringify(interruptedError), now, maxAttempts],
      ),
      requeued: await ids(sql, "UPDATE jobs SET status = 'queued', queued_at = $1 WHERE status = 'running'", [
        now,
      ]),
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

  async unfinishedCounts(): Promise<UnfinishedJobs[]> {
    const rows = await this.db.rows<
      Omit<UnfinishedJobs, 'userId' | 'count'> & { user_id: number; count: string }
    >(COUNT_UNFINISHED);
    return rows.map(({ user_id, count, ...row }) => ({ ...row, userId: user_id, count: num(count) }));
  }

  async recentDurations(since: number): Promise<RecentDuration[]> {
    const rows = await this.db.rows<{ operation: JobOperation; mean_ms: string; count: string }>(
      RECENT_DURATIONS,
      [since],
    );
    return rows.map((row) => ({ operation: row.operation, meanMs: num(row.mean_ms), count: num(row.count) }));
  }
}
