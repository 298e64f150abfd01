// Jobs as the server before the job core's split into queue, runs and waiters left them, for the
// upgrade tests: rows written with that server's statements (no `request_id` yet), inputs where its
// input stores kept them (unchanged since), and BullMQ jobs as its dispatch added them. Its schema is
// SQLite migration 5 and PostgreSQL migration 4 (postgresSchemaAt, sqliteSchemaAt).
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';

export const OLD_SQLITE_VERSION = 5;
export const OLD_POSTGRES_VERSION = 4;

export interface OldJob {
  id: string;
  operation: 'merge' | 'split';
  /** The params as that server's routes stored them. */
  params: Record<string, unknown>;
  files: Uint8Array[];
  /** Claimed (status running, one attempt): by its embedded runner, or by a dispatch for BullMQ. */
  claimed: boolean;
}

/** A Premium page budget as that server's routes put into merge and split params. */
export const PREMIUM_BUDGET = { maxPages: 2000, holder: 'the Premium plan' };

export const oldJobId = () => `job_${randomBytes(16).toString('base64url')}`;

const inputOf = (job: OldJob) =>
  JSON.stringify({
    files: job.files.map((file, index) => ({
      stored: String(index),
      name: `in${index}.pdf`,
      size: file.length,
    })),
    params: job.params,
  });

const INSERT = `INSERT INTO jobs (id, user_id, operation, mode, status, input, created_at)
  VALUES ($1, $2, $3, 'async', 'queued', $4, $5)`;

/** The embedded server's user and jobs in `<dataDir>/pdn.sqlite`, their inputs in `<dataDir>/jobs`. */
export async function writeSqliteJobs(dataDir: string, user: string, jobs: readonly OldJob[]): Promise<void> {
  for (const job of jobs) {
    const folder = join(dataDir, 'jobs', job.id, 'inputs');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    for (const [index, file] of job.files.entries()) await writeFile(join(folder, String(index)), file);
  }
  const db = new Database(join(dataDir, 'pdn.sqlite'));
  try {
    const now = Date.now();
    const { lastInsertRowid } = db
      .prepare("INSERT INTO users (name, plan, created_at) VALUES (?, 'premium', ?)")
      .run(user, now);
    const insert = db.prepare(INSERT.replace(/\$\d/g, '?'));
    const claim = db.prepare(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ?,
         start_seq = (SELECT COALESCE(MAX(start_seq), 0) + 1 FROM jobs) WHERE id = ?`,
    );
    for (const job of jobs) {
      insert.run(job.id, lastInsertRowid, job.operation, inputOf(job), now);
      if (job.claimed) claim.run(now, job.id);
    }
  } finally {
    db.close();
  }
}

export interface SharedTarget {
  databaseUrl: string;
  /** s3rver's endpoint and bucket: it checks no signatures, so a plain PUT stores an object. */
  s3Endpoint: string;
  bucket: string;
}

/** The shared backends' user and jobs in PostgreSQL, their inputs in the bucket under `inputs/`. */
export async function writePostgresJobs(
  target: SharedTarget,
  user: string,
  jobs: readonly OldJob[],
): Promise<void> {
  for (const job of jobs)
    for (const [index, file] of job.files.entries()) {
      const res = await fetch(`${target.s3Endpoint}/${target.bucket}/inputs/${job.id}/${index}`, {
        method: 'PUT',
        body: file,
      });
      if (!res.ok) throw new Error(`storing an input answered ${res.status}`);
    }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    const now = Date.now();
    const { rows } = await client.query<{ id: number }>(
      "INSERT INTO users (name, plan, created_at) VALUES ($1, 'premium', $2) RETURNING id",
      [user, now],
    );
    for (const job of jobs) {
      await client.query(INSERT, [job.id, rows[0]?.id, job.operation, inputOf(job), now]);
      if (job.claimed)
        await client.query(
          `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = $1,
             start_seq = nextval('job_starts') WHERE id = $2`,
          [now, job.id],
        );
    }
  } finally {
    await client.end();
  }
}

/** The deployment's one BullMQ queue, named and prefixed as that server's dispatch named it. */
export function oldBullmqQueue(
  redisUrl: string,
  keyPrefix: string,
): { queue: Queue; close(): Promise<void> } {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('jobs', {
    connection,
    prefix: `${keyPrefix}bull`,
    defaultJobOptions: { attempts: 2, removeOnComplete: true, removeOnFail: true },
  });
  return {
    queue,
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/** A claimed job handed to BullMQ, as that server's dispatch handed it over. */
export async function enqueueAsOldDispatch(queue: Queue, job: OldJob): Promise<void> {
  await queue.add(job.operation, { id: job.id }, { jobId: job.id });
}

/**
 * A job an old worker took from BullMQ and died running: taken as a worker takes one, then its lock
 * left to lapse (after `lockMs`, shorter than a worker's own so the test need not wait as long).
 */
export async function takenByAWorkerThatDied(
  redisUrl: string,
  keyPrefix: string,
  id: string,
  lockMs: number,
): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker('jobs', null, { connection, prefix: `${keyPrefix}bull`, lockDuration: lockMs });
  try {
    const job = await worker.getNextJob(randomBytes(8).toString('hex'));
    if (job?.id !== id) throw new Error(`the dying worker took ${job?.id}, not ${id}`);
  } finally {
    await worker.close(true);
    connection.disconnect();
  }
}
