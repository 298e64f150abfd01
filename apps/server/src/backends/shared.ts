// The shared backends, imported by index.ts only when PDN_DATABASE_URL and the rest are set: a
// node-postgres pool for accounts, one ioredis client for rate limits and the sweeper's lock, another
// for the BullMQ job queue, an S3 client for outputs. Each client is opened, checked once (so a wrong
// URL stops the start with a message naming the service), and its cleanup registered before the next
// one opens.
//
// Failures after the start are answered, not fatal: the pool and the client report lost connections
// as events (logged once per outage, never thrown), queries fail fast instead of queueing while a
// service is away (pg: connectionTimeoutMillis; ioredis: no offline queue, a command timeout), and
// the stores turn those failures into 503 service_unavailable (unreachable.ts). Both reconnect on
// their own, so the first request after the service is back succeeds.
import { S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type Accounts, type AccountsOptions, composeAccounts } from '../accounts/index.js';
import { RedisRateEvents } from '../accounts/redis/redis-rate-events.js';
import { type CopyCounts, copyFromSqlite } from '../database/postgres/copy-from-sqlite.js';
import { openPostgresStores } from '../database/postgres/index.js';
import { PgDb } from '../database/postgres/pg-db.js';
import { openDatabase } from '../database/sqlite/sqlite-database.js';
import type { Stores } from '../database/stores.js';
import { BullmqJobQueue } from '../jobs/bullmq/bullmq-job-queue.js';
import type { Logger } from '../logger.js';
import { redisSweepLock } from '../storage/redis-sweep-lock.js';
import { S3InputStore } from '../storage/s3/s3-input-store.js';
import { S3OutputStore } from '../storage/s3/s3-output-store.js';
import { SmallInputsInline } from '../storage/small-inputs-inline.js';
import { SmallOutputsInline } from '../storage/small-outputs-inline.js';
import type { DatabaseConfig, S3Config, SharedBackendConfig } from './backend-config.js';
import type { Cleanups } from './cleanups.js';
import type { Backends } from './index.js';
import { outageLog } from './outage-log.js';
import { warnIfForgetful } from './redis-persistence.js';
import { checkBucket } from './s3-bucket-check.js';
import { watchSharedConnections } from './shared-metrics.js';

/** A URL fit for a log line or an error message: no password. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

async function opened<T>(service: string, url: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw new Error(`cannot use ${service} at ${url}: ${(error as Error).message}`, { cause: error });
  }
}

function openPool(database: DatabaseConfig, log: Logger, cleanups: Cleanups): pg.Pool {
  const pool = new pg.Pool({
    connectionString: database.url,
    max: database.poolSize,
    // A request waits at most this long for a connection while PostgreSQL is away, then gets 503.
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    query_timeout: 10_000,
    keepAlive: true,
  });
  const outage = outageLog(log, 'PostgreSQL');
  // An idle client losing its connection is emitted here; unheard, it would crash the process.
  pool.on('error', (error) => outage.failed(error));
  pool.on('connect', () => outage.recovered());
  cleanups.add('PostgreSQL pool', () => pool.end());
  return pool;
}

/** Logs the client's outages, registers its cleanup and connects it (`name`: which client, for both). */
async function openedRedis(redis: Redis, url: string, name: string, log: Logger, cleanups: Cleanups) {
  const outage = outageLog(log, name);
  redis.on('error', (error) => outage.failed(error));
  redis.on('ready', () => outage.recovered());
  cleanups.add(`${name} client`, async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  await opened('Redis', redacted(url), () => redis.connect());
  return redis;
}

function openRedis(url: string, log: Logger, cleanups: Cleanups): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // While Redis is away commands fail at once (and the request gets 503) instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  return openedRedis(redis, url, 'Redis', log, cleanups);
}

/**
 * The job queue's client: BullMQ's blocking reads and its own retries need commands that wait while
 * Redis is away (maxRetriesPerRequest null) rather than the request clients' fail-fast settings.
 */
function openQueueRedis(url: string, log: Logger, cleanups: Cleanups): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null });
  return openedRedis(redis, url, 'Redis (job queue)', log, cleanups);
}

async function openS3(config: S3Config, cleanups: Cleanups): Promise<S3Client> {
  const client = new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
    // Checksums only where S3 requires them: several S3-compatible servers (s3rver among them)
    // mishandle the SDK's default checksummed, aws-chunked uploads. Bytes are still
    // checked end to end by the contract's round-trip test.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  cleanups.add('S3 client', () => client.destroy());
  await checkBucket(client, config);
  return client;
}

/**
 * PostgreSQL's codes for a named statement prepared twice on one connection, or missing from it: what
 * a pooler in transaction mode that cannot carry named statements causes at the first queries.
 */
const STATEMENT_NOT_CARRIED = new Set(['42P05', '26000']);

/** The stores in PostgreSQL, its schema brought up to date (under an advisory lock) on the way. */
async function openStores(
  pool: pg.Pool,
  database: DatabaseConfig,
  options: AccountsOptions,
): Promise<Stores> {
  return opened('PostgreSQL', redacted(database.url), async () => {
    try {
      return await openPostgresStores(pool, options.now, database.preparedStatements);
    } catch (error) {
      if (!STATEMENT_NOT_CARRIED.has((error as { code?: string }).code ?? '')) throw error;
      throw new Error(
        `${(error as Error).message}: behind a pooler in transaction mode that does not carry named ` +
          'statements (PgBouncer before 1.21), set PDN_DATABASE_PREPARED_STATEMENTS=false ' +
          '(README, "Connections to PostgreSQL")',
        { cause: error },
      );
    }
  });
}

/** `pdn-server accounts copy`: a SQLite data folder's users and keys into the PostgreSQL database. */
export async function copyIntoSharedAccounts(
  database: DatabaseConfig,
  fromDataDir: string,
  log: Logger,
  cleanups: Cleanups,
): Promise<CopyCounts> {
  const pool = openPool(database, log, cleanups);
  await openStores(pool, database, {});
  const source = openDatabase(fromDataDir);
  cleanups.add('source database (SQLite)', () => {
    source.close();
  });
  return copyFromSqlite(source, new PgDb(pool, database.preparedStatements));
}

/** For the admin commands: accounts alone, no Redis or S3 client. */
export async function openSharedAccounts(
  database: DatabaseConfig,
  options: AccountsOptions,
  log: Logger,
  cleanups: Cleanups,
): Promise<Accounts> {
  const pool = openPool(database, log, cleanups);
  return composeAccounts(await openStores(pool, database, options), options);
}

export async function openSharedBackends(
  config: SharedBackendConfig,
  options: AccountsOptions,
  log: Logger,
  cleanups: Cleanups,
): Promise<Backends> {
  const pool = openPool(config.database, log, cleanups);
  const stores = await openStores(pool, config.database, options);
  const redis = await openRedis(config.redisUrl, log, cleanups);
  await warnIfForgetful(redis, redacted(config.redisUrl), log);
  const queueRedis = await openQueueRedis(config.redisUrl, log, cleanups);
  watchSharedConnections(pool, redis, cleanups);
  const s3 = await openS3(config.s3, cleanups);
  log.info('backends: shared', {
    accounts: redacted(config.database.url),
    rate_limits: redacted(config.redisUrl),
    outputs_and_inputs: `${config.s3.endpoint ?? 'AWS S3'} bucket ${config.s3.bucket}`,
  });
  return {
    stores,
    // Rate windows in Redis rather than the accounts database: one round trip per request.
    accounts: composeAccounts(
      { ...stores, rateEvents: new RedisRateEvents(redis, `${config.redisKeyPrefix}rate:`) },
      options,
    ),
    sharedStorage: {
      outputs: new SmallOutputsInline(new S3OutputStore(s3, config.s3.bucket), stores.outputRows),
      inputs: new SmallInputsInline(new S3InputStore(s3, config.s3.bucket)),
      sweepLock: redisSweepLock(redis, `${config.redisKeyPrefix}lock:sweep`),
    },
    openQueue: (parts) =>
      new BullmqJobQueue({
        ...parts,
        redis: queueRedis,
        requestRedis: redis,
        prefix: config.redisKeyPrefix,
        lockMs: config.jobLockMs,
      }),
  };
}
