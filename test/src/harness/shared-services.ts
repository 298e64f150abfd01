// The shared backends for end-to-end tests: a fresh PostgreSQL database on the machine's
// server, a Redis key prefix of this run's own on the machine's Redis, both reached through TcpProxy
// so a test can cut them, and an S3 bucket on s3rver running in the test process or its own (it checks no
// signatures: never rely on it to refuse anything). `env` is what every server of the test gets.
// Without PostgreSQL or Redis, sharedServicesMissing() says why the suite skips.
/// <reference path="./s3rver.d.ts" />
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';
import { TcpProxy } from './tcp-proxy.js';

const DATABASE_URL = process.env.PDN_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const REDIS_URL = process.env.PDN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUCKET = 'pdn-e2e';

export function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Undefined when PostgreSQL and Redis answer; else why the suite skips (also logged). */
export async function sharedServicesMissing(): Promise<string | undefined> {
  const absent = [];
  if (!(await answers(DATABASE_URL, 5432)))
    absent.push(`PostgreSQL at ${DATABASE_URL} (PDN_TEST_DATABASE_URL)`);
  if (!(await answers(REDIS_URL, 6379))) absent.push(`Redis at ${REDIS_URL} (PDN_TEST_REDIS_URL)`);
  if (absent.length === 0) return undefined;
  const reason = `[e2e] skipping the shared-backend suite: nothing answers from ${absent.join(' or ')}; .ci/run installs and starts both`;
  console.warn(reason);
  return reason;
}

export interface SharedServices {
  /** PDN_DATABASE_URL, PDN_REDIS_URL, PDN_S3_* and the AWS keys, through the proxies. */
  env: Record<string, string>;
  /**
   * The same services with PostgreSQL and Redis reached directly: for measurements (the bench), where
   * the proxies, which run in this process, would add its load to every call the server makes.
   */
  directEnv: Record<string, string>;
  postgres: TcpProxy;
  redis: TcpProxy;
  /** s3rver's folder for the bucket (an object's key is its path): what the bucket holds, as files. */
  bucketDir: string;
  /**
   * Bytes written into the bucket so far under keys starting with `prefix` (default: all): every
   * object created, those removed since included (the bench weighs it; job inputs are under `inputs/`).
   */
  bucketWritten(prefix?: string): number;
  /** Drops the database, the Redis keys and the bucket's folder; closes the proxies and s3rver. */
  stop(): Promise<void>;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** s3rver serving the bucket, wherever it runs. */
interface Bucket {
  port: number;
  written(prefix: string): number;
  close(): Promise<void>;
}

/** s3rver in this process, which counts what is written into the bucket from its events. */
async function startBucketHere(directory: string): Promise<Bucket> {
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const written: { key: string; size: number }[] = [];
  s3.on('event', (event) => {
    for (const {
      eventName,
      s3: { object },
    } of event.Records)
      if (eventName.startsWith('ObjectCreated:')) written.push({ key: object.key, size: object.size ?? 0 });
  });
  const { port } = await s3.run();
  return {
    port,
    written: (prefix) =>
      written.reduce((total, object) => (object.key.startsWith(prefix) ? total + object.size : total), 0),
    close: () => s3.close(),
  };
}

/** s3rver in a process of its own (s3rver-process.js), as a bucket is to its clients; it counts nothing. */
async function startBucketProcess(directory: string): Promise<Bucket> {
  const script = fileURLToPath(new URL('./s3rver-process.js', import.meta.url));
  const child = spawn(process.execPath, [script, directory, BUCKET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let output = '';
  for await (const chunk of child.stdout) {
    output += String(chunk);
    if (output.includes('\n')) break;
  }
  const port = Number(/^listening (\d+)/.exec(output)?.[1]);
  if (!Number.isInteger(port)) {
    child.kill('SIGKILL');
    throw new Error(`s3rver-process.js did not start: ${output}`);
  }
  return {
    port,
    written: () => {
      throw new Error('a bucket in a process of its own counts no writes: start it in this process');
    },
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `on`: the PostgreSQL (a database its superuser can create others from) and Redis to use, when not
 * the machine's (a test's own, own-services.ts). `bucketProcess`: s3rver in a process of its own,
 * for measurements (bucketWritten then throws).
 */
export async function startSharedServices(
  on: { databaseUrl: string; redisUrl: string } = { databaseUrl: DATABASE_URL, redisUrl: REDIS_URL },
  { bucketProcess = false }: { bucketProcess?: boolean } = {},
): Promise<SharedServices> {
  const { databaseUrl: adminUrl, redisUrl } = on;
  const run = randomBytes(6).toString('hex');
  const database = `pdn_e2e_${run}`;
  const keyPrefix = `pdn-e2e-${run}:`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  const pgTarget = new URL(adminUrl);
  const redisTarget = new URL(redisUrl);
  const postgres = await TcpProxy.start({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
  const redis = await TcpProxy.start({ host: redisTarget.hostname, port: Number(redisTarget.port || 6379) });
  const directory = await mkdtemp(join(tmpdir(), 'pdn-e2e-s3-'));
  const bucket = bucketProcess ? await startBucketProcess(directory) : await startBucketHere(directory);
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${database}`;
  const viaProxy = (url: URL, proxy: TcpProxy) => {
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    return proxied.toString();
  };
  const env = {
    PDN_DATABASE_URL: viaProxy(databaseUrl, postgres),
    PDN_REDIS_URL: viaProxy(new URL(redisUrl), redis),
    PDN_REDIS_KEY_PREFIX: keyPrefix,
    PDN_S3_ENDPOINT: `http://127.0.0.1:${bucket.port}`,
    PDN_S3_BUCKET: BUCKET,
    PDN_S3_REGION: 'us-east-1',
    PDN_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  return {
    env,
    directEnv: { ...env, PDN_DATABASE_URL: databaseUrl.toString(), PDN_REDIS_URL: redisUrl },
    postgres,
    redis,
    bucketDir: join(directory, BUCKET),
    bucketWritten: (prefix = '') => bucket.written(prefix),
    async stop() {
      await postgres.close();
      await redis.close();
      await bucket.close();
      await rm(directory, { recursive: true, force: true });
      await withClient(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
      );
      const client = new Redis(redisUrl);
      try {
        const keys = await client.keys(`${keyPrefix}*`);
        if (keys.length > 0) await client.del(...keys);
      } finally {
        client.disconnect();
      }
    },
  };
}
