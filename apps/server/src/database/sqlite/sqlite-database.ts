// The SQLite database: one SQLite file in the data folder, shared by the running server and the
// `pdn-server keys|users` admin commands (which must work while the server runs). WAL lets
// readers and the one writer proceed together; busy_timeout makes a second process wait for the
// write lock instead of failing with SQLITE_BUSY.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * Every schema change, in order; `PRAGMA user_version` records how many have run. Append only:
 * an existing entry is never edited, because databases in the field have already applied it.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     plan TEXT NOT NULL CHECK (plan IN ('free', 'premium', 'business', 'enterprise')),
     created_at INTEGER NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users (id),
     kind TEXT NOT NULL CHECK (kind IN ('live', 'test')),
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     last_used_at INTEGER,
     revoked_at INTEGER
   );
   CREATE INDEX api_keys_user ON api_keys (user_id);
   CREATE TABLE rate_events (
     user_id INTEGER NOT NULL REFERENCES users (id),
     at INTEGER NOT NULL
   );
   CREATE INDEX rate_events_user_at ON rate_events (user_id, at);`,
  // The account area: users gain an email and a password and may lack a name (those who
  // sign up), which SQLite can only express by rebuilding the table (foreign keys are off during
  // migrations, see openDatabase); keys gain a name; sessions, throttled attempts and one-time
  // sign-in links get tables of their own.
  `CREATE TABLE users_v2 (
     id INTEGER PRIMARY KEY,
     name TEXT UNIQUE,
     email TEXT UNIQUE,
     password_hash TEXT,
     plan TEXT NOT NULL CHECK (plan IN ('free', 'premium', 'business', 'enterprise')),
     created_at INTEGER NOT NULL,
     CHECK (name IS NOT NULL OR email IS NOT NULL)
   );
   INSERT INTO users_v2 (id, name, plan, created_at) SELECT id, name, plan, created_at FROM users;
   DROP TABLE users;
   ALTER TABLE users_v2 RENAME TO users;
   ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
   CREATE TABLE sessions (
     id_hash TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     csrf_token TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     last_seen_at INTEGER NOT NULL
   );
   CREATE INDEX sessions_user ON sessions (user_id);
   CREATE TABLE attempts (
     bucket TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX attempts_bucket_at ON attempts (bucket, at);
   CREATE TABLE sign_in_links (
     token_hash TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX sign_in_links_user ON sign_in_links (user_id);`,
  // Jobs: one row per job from submission until it is forgotten. `seq` orders submissions;
  // `start_seq` orders starts, so the fair pick can tell whose last job started longest ago.
  `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     operation TEXT NOT NULL,
     mode TEXT NOT NULL CHECK (mode IN ('sync', 'async')),
     status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
     attempts INTEGER NOT NULL DEFAULT 0,
     input TEXT NOT NULL,
     result TEXT,
     error TEXT,
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     finished_at INTEGER,
     start_seq INTEGER
   );
   CREATE INDEX jobs_user_seq ON jobs (user_id, seq);
   CREATE INDEX jobs_status_seq ON jobs (status, seq);
   CREATE INDEX jobs_user_start ON jobs (user_id, start_seq);
   CREATE INDEX jobs_finished ON jobs (finished_at);`,
  // Idempotency-Key: one row per user and key while it is remembered (24 hours).
  `CREATE TABLE idempotency_keys (
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     token TEXT NOT NULL,
     fingerprint TEXT,
     job_id TEXT,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (user_id, key)
   );
   CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
  // Webhooks: each account's secrets (the current one has no retired_at), and one delivery
  // per job submitted with a callback_url, from submission until forgotten with the job.
  `CREATE TABLE webhook_secrets (
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     secret TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     retired_at INTEGER
   );
   CREATE INDEX webhook_secrets_user ON webhook_secrets (user_id);
   CREATE TABLE webhook_deliveries (
     job_id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('waiting', 'due', 'delivered', 'failed')),
     event_id TEXT,
     body TEXT,
     attempts INTEGER NOT NULL,
     next_attempt_at INTEGER,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
   CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);`,
  // Each job names the request that submitted it, so the lines of a job run in a worker carry the
  // request id the client was answered with. Older jobs have none.
  `ALTER TABLE jobs ADD COLUMN request_id TEXT;`,
  // The addresses each account signed in from (accounts/throttle.ts): from one of them its owner gets past
  // the lock that other addresses' failures put on the account.
  `CREATE TABLE known_addresses (
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     address TEXT NOT NULL,
     last_at INTEGER NOT NULL,
     PRIMARY KEY (user_id, address)
   );
   CREATE INDEX known_addresses_last_at ON known_addresses (last_at);`,
  // Where the server was reached at its latest start (server-address/), for the admin commands' links.
  `CREATE TABLE server_address (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     listening TEXT NOT NULL,
     public_url TEXT,
     recorded_at INTEGER NOT NULL
   );`,
  // Each delivery names its receiving host (webhooks/receiving-host.ts: the URL's host and port), so
  // a claim can pass over the hosts at their cap of attempts in flight. A stored URL is a normalised
  // href, whose authority always ends at the first '/' after '://'.
  `ALTER TABLE webhook_deliveries ADD COLUMN host TEXT NOT NULL DEFAULT '';
   UPDATE webhook_deliveries SET host = substr(url, instr(url, '://') + 3,
     instr(substr(url, instr(url, '://') + 3), '/') - 1);`,
  // What every job start and every synchronous call read, kept cheap however many jobs the table
  // keeps: a start numbers itself after the highest start so far, which without an index on
  // start_seq read every row (1.3 ms a start with 40,000 jobs kept), and admission counts unfinished
  // jobs by user, kind and status, which a covering index answers without sorting them (3 times
  // faster with 1,400 queued).
  `CREATE INDEX jobs_start ON jobs (start_seq);
   CREATE INDEX jobs_unfinished ON jobs (status, user_id, operation, mode);`,
  // When each job last joined the queue (jobs/job-store.ts JobRecord.queuedAt): a job that hands its
  // slot on between chunks of its work, or is queued again after its process was lost, waits its
  // next start from then, not from its creation (pdn_job_queue_wait_seconds). Empty where a job was
  // stored before, or by a process of the version before during a rolling upgrade, which names the
  // columns it writes: its creation stands for it (jobs/job-rows.ts).
  `ALTER TABLE jobs ADD COLUMN queued_at INTEGER;`,
  // When a rolled key stops working (accounts/api-keys.ts): empty for every other key.
  `ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;`,
  // Each attempt of a webhook delivery, for its owner to read on the webhooks page, forgotten with
  // its delivery; and the owner's deliveries, newest first.
  `CREATE TABLE webhook_attempts (
     job_id TEXT NOT NULL REFERENCES webhook_deliveries (job_id) ON DELETE CASCADE,
     number INTEGER NOT NULL,
     at INTEGER NOT NULL,
     status INTEGER,
     error TEXT,
     body_start TEXT,
     PRIMARY KEY (job_id, number)
   );
   CREATE INDEX webhook_deliveries_user ON webhook_deliveries (user_id, created_at);`,
  // `pdn login`'s device codes (accounts/device-logins.ts), forgotten once expired.
  `CREATE TABLE device_logins (
     device_hash TEXT PRIMARY KEY,
     user_code TEXT NOT NULL UNIQUE,
     client_name TEXT NOT NULL,
     client_address TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     interval_ms INTEGER NOT NULL,
     last_poll_at INTEGER,
     state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'used')),
     user_id INTEGER REFERENCES users (id) ON DELETE CASCADE
   );
   CREATE INDEX device_logins_expires ON device_logins (expires_at);`,
  // Small input files kept with their job instead of in the input store (storage/small-inputs-inline.ts),
  // set to null as the job ends (jobs/job-rows.ts).
  `ALTER TABLE jobs ADD COLUMN inline_inputs TEXT;`,
  // Small outputs as rows (storage/small-outputs-inline.ts), swept at their expiry. The embedded server
  // keeps its outputs in the outputs folder; the table keeps the schema the same as PostgreSQL's.
  `CREATE TABLE small_outputs (
     id TEXT PRIMARY KEY,
     filename TEXT NOT NULL,
     size INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     body BLOB NOT NULL
   );
   CREATE INDEX small_outputs_expires ON small_outputs (expires_at);`,
];

function databasePath(dataDir: string): string {
  return join(dataDir, 'pdn.sqlite');
}

/** Whether `dataDir` holds a database: the admin commands work only on one that does. */
export function hasDatabase(dataDir: string): boolean {
  return existsSync(databasePath(dataDir));
}

/**
 * Opens (creating if needed) `<dataDir>/pdn.sqlite` and brings its schema up to date, or up to
 * `version` only: a database as a server of that version left it, for the upgrade tests.
 */
export function openDatabase(dataDir: string, version = MIGRATIONS.length): Db {
  // Users and key hashes are nobody else's business: the data folder is 0700 and the database 0600,
  // whatever the umask (QA found 0755/0644). SQLite gives its -wal and -shm files the database's mode.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = databasePath(dataDir);
  writeFileSync(path, '', { flag: 'a', mode: 0o600 });
  // A database created by an earlier version may still be 0644.
  chmodSync(path, 0o600);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // In WAL mode NORMAL still survives a crash of the process; only a power cut can lose the last few
  // commits (a few rate-limit records), and it spares an fsync on every request.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // Foreign keys are off during the migrations (better-sqlite3 turns them on by default): rebuilding a
  // referenced table (migration 2) must not cascade or fail; foreign_key_check runs before the commit
  // instead (https://www.sqlite.org/lang_altertable.html, "other kinds of table schema changes").
  db.pragma('foreign_keys = OFF');
  migrate(db, version);
  db.pragma('foreign_keys = ON');
  compileOnce(db);
  return db;
}

/**
 * Makes `db.prepare` compile each statement once and hand out the same one after: the stores prepare
 * their statements where they run them, and compiling them again on every request cost a refusal of a
 * synchronous call a tenth of its CPU time (profiled). A statement is reusable as soon as a
 * run() / get() / all() returns, and nothing here switches one's mode (pluck, raw, expand).
 */
function compileOnce(db: Db): void {
  const compile = db.prepare.bind(db);
  const compiled = new Map<string, ReturnType<Db['prepare']>>();
  db.prepare = ((sql: string) => {
    let statement = compiled.get(sql);
    if (statement === undefined) {
      statement = compile(sql);
      compiled.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
}

function migrate(db: Db, version: number): void {
  // IMMEDIATE: two processes starting together must not both apply the same migration.
  db.transaction(() => {
    const applied = db.pragma('user_version', { simple: true }) as number;
    for (const [index, sql] of MIGRATIONS.slice(0, version).entries()) {
      if (index < applied) continue;
      db.exec(sql);
    }
    // Never lowered: a server rolled back to an older version leaves a newer schema's version in
    // place, so the newer server, started again, does not apply its migrations a second time.
    db.pragma(`user_version = ${Math.max(applied, version)}`);
    const broken = db.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) throw new Error(`the accounts database has ${broken.length} dangling references`);
  }).immediate();
}
