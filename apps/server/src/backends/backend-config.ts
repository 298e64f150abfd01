// Which backends hold the server's state. With no PDN_DATABASE_URL, PDN_REDIS_URL or
// PDN_S3_* set: embedded, exactly as before (SQLite and the outputs folder in the data folder). With
// any of them set, every piece of state goes to the shared services and all of them must be given,
// since a half-shared server is wrong in a way nobody would notice at first: limits in Redis but keys
// in a local SQLite file, or outputs in a folder the other processes cannot read. So a partial set
// stops the server at start with the list of what is missing.
import { ConfigError } from '../config-error.js';
import { type Env, flag, integer, text } from '../env-values.js';

/** What connects a process to the shared services; every process of one deployment gets the same. */
export interface SharedBackendConfig {
  database: DatabaseConfig;
  /** redis://… or rediss://…: rate-limit windows and the sweeper's lock. */
  redisUrl: string;
  /** PDN_REDIS_KEY_PREFIX, default `pdn:`: keeps deployments (or test runs) sharing one Redis apart. */
  redisKeyPrefix: string;
  /**
   * PDN_JOB_LOCK_MS, default 15 s: a running job's lock, which its worker renews every half of it. A
   * worker that dies stops renewing, and another runs the job within about 1.7 times this (the lock
   * running out, then BullMQ's stalled-job check, every two thirds of it). Shorter notices a lost
   * worker sooner; too short for the machine, a busy worker that missed a renewal has its job run twice.
   */
  jobLockMs: number;
  s3: S3Config;
}

export interface DatabaseConfig {
  /** postgres://…: accounts (users, keys, plans, sessions, sign-in links, throttle), jobs, deliveries. */
  url: string;
  /**
   * PDN_DATABASE_POOL_SIZE: the connections one process opens at most. The deployment's sum, every
   * process's pool, must stay under PostgreSQL's max_connections less its reserved ones (README,
   * "Connections to PostgreSQL").
   */
  poolSize: number;
  /**
   * PDN_DATABASE_PREPARED_STATEMENTS: queries with parameters as named statements, parsed and planned
   * once per connection. Off for a pooler that cannot carry them between its server connections
   * (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements: boolean;
}

export interface S3Config {
  /** Absent: AWS S3 itself; else an S3-compatible server (MinIO, Ceph, …). */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers want. */
  forcePathStyle: boolean;
  /** From AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; absent: the SDK's default chain (roles, profiles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export type BackendConfig = { kind: 'embedded' } | ({ kind: 'shared' } & SharedBackendConfig);

/** PDN_JOB_LOCK_MS when unset: a dead worker's job moves on within about 25 s. */
export const DEFAULT_JOB_LOCK_MS = 15_000;
/**
 * PDN_DATABASE_POOL_SIZE when unset: 30 processes open at most 90 connections, under PostgreSQL's
 * default max_connections (100, 3 of them kept for superusers). Three suffice for a process: a call's
 * statements take about a millisecond each, and a burst's wait for a connection is measured in the
 * crowd tests on the shared stack.
 */
export const DEFAULT_DATABASE_POOL_SIZE = 3;

/** The variables that ask for the shared backends; any one of them set means all are needed. */
export const SHARED_VARIABLES = [
  'PDN_DATABASE_URL',
  'PDN_REDIS_URL',
  'PDN_S3_ENDPOINT',
  'PDN_S3_BUCKET',
  'PDN_S3_REGION',
  'PDN_S3_FORCE_PATH_STYLE',
] as const;

/** Needed once any shared variable is set (PDN_S3_ENDPOINT may stay unset for AWS S3 itself). */
const REQUIRED = ['PDN_DATABASE_URL', 'PDN_REDIS_URL', 'PDN_S3_BUCKET', 'PDN_S3_REGION'] as const;

function url(env: Env, name: string, protocols: readonly string[]): string {
  const raw = text(env, name) ?? '';
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : '';
  if (!protocols.includes(protocol)) {
    const wanted = protocols.map((p) => `${p}//…`).join(' or ');
    throw new ConfigError(`${name} must be a URL starting ${wanted}, got '${raw}'`);
  }
  return raw;
}

function credentials(env: Env): S3Config['credentials'] {
  const accessKeyId = text(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new ConfigError(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: set both, or neither to use the AWS SDK’s default credentials',
    );
  }
  const sessionToken = text(env, 'AWS_SESSION_TOKEN');
  return { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
}

/**
 * Embedded when no shared variable is set; the shared set when all are; else a ConfigError
 * naming what is missing. `signingSecretSet`: several processes must sign download URLs alike, so the
 * secret cannot be one generated into a local data folder.
 */
export function backendConfig(env: Env, signingSecretSet: boolean): BackendConfig {
  const given = SHARED_VARIABLES.filter((name) => text(env, name) !== undefined);
  if (given.length === 0) return { kind: 'embedded' };
  const missing: string[] = REQUIRED.filter((name) => text(env, name) === undefined);
  if (!signingSecretSet) missing.push('PDN_SIGNING_SECRET');
  if (missing.length > 0) {
    throw new ConfigError(
      `${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set, so accounts go to PostgreSQL, rate limits ` +
        `to Redis and outputs to S3, which also needs ${missing.join(', ')} (README, "Shared backends"). ` +
        'Unset them all for the embedded SQLite file and outputs folder.',
    );
  }
  const endpoint = text(env, 'PDN_S3_ENDPOINT');
  const creds = credentials(env);
  return {
    kind: 'shared',
    database: {
      url: url(env, 'PDN_DATABASE_URL', ['postgres:', 'postgresql:']),
      poolSize: integer(env, 'PDN_DATABASE_POOL_SIZE', DEFAULT_DATABASE_POOL_SIZE, 1, 1_000),
      preparedStatements: flag(env, 'PDN_DATABASE_PREPARED_STATEMENTS', true),
    },
    redisUrl: url(env, 'PDN_REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: text(env, 'PDN_REDIS_KEY_PREFIX') ?? 'pdn:',
    jobLockMs: integer(env, 'PDN_JOB_LOCK_MS', DEFAULT_JOB_LOCK_MS, 2_000, 600_000),
    s3: {
      ...(endpoint === undefined ? {} : { endpoint: url(env, 'PDN_S3_ENDPOINT', ['http:', 'https:']) }),
      bucket: text(env, 'PDN_S3_BUCKET') ?? '',
      region: text(env, 'PDN_S3_REGION') ?? '',
      forcePathStyle: flag(env, 'PDN_S3_FORCE_PATH_STYLE', false),
      ...(creds === undefined ? {} : { credentials: creds }),
    },
  };
}
