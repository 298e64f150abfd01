// `npm run stack` (issue #16): a local scaled-out pdn to try. The machine's PostgreSQL and Redis (a
// database and a key prefix of this run's own), an S3 bucket on s3rver, two `--role api` processes
// and a `--role worker` on one data folder, behind a small round-robin proxy. Prints the URL and an
// API key; Ctrl-C stops everything and removes the database, the keys and the folders.
// PDN_STACK_DATABASE_URL, PDN_STACK_REDIS_URL and PDN_STACK_PORT change where it connects and listens.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';

const SERVER_BIN = new URL('../apps/server/dist/bin.js', import.meta.url).pathname;
const DATABASE_URL = process.env.PDN_STACK_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const REDIS_URL = process.env.PDN_STACK_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
const database = `pdn_stack_${run}`;
const keyPrefix = `pdn-stack-${run}:`;
const cleanups = [];

async function sql(text) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Starts `pdn-server start --role ROLE`; resolves with its URL (undefined for a worker) once ready. */
function startProcess(role, env) {
  const child = spawn(process.execPath, [SERVER_BIN, 'start', '--role', role], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`--role ${role} exited (${code}):\n${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const listening = /pdn server listening on (\S+)/.exec(output);
      if (listening) resolve(listening[1]);
      else if (/pdn worker running on /.test(output)) resolve(undefined);
    });
  });
}

/** Round-robin over the API processes, streaming requests and answers both ways. */
function startProxy(targets, port) {
  let next = 0;
  const proxy = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/', targets[next++ % targets.length]);
    const forwarded = request(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  cleanups.push(() => new Promise((resolve) => proxy.close(() => resolve())));
  return new Promise((resolve) => proxy.listen(port, '127.0.0.1', () => resolve(proxy.address().port)));
}

async function stop() {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error.message));
}

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'pdn-stack-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await sql(`CREATE DATABASE ${database}`);
  cleanups.push(() => sql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  cleanups.push(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(root, 's3'),
    configureBuckets: [{ name: 'pdn' }],
  });
  const { port: s3Port } = await s3.run();
  cleanups.push(() => s3.close());
  const databaseUrl = new URL(DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  const env = {
    ...process.env,
    PORT: '0',
    PDN_DATA_DIR: join(root, 'data'),
    PDN_LOG_LEVEL: process.env.PDN_LOG_LEVEL ?? 'warn',
    PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
    PDN_DATABASE_URL: databaseUrl.toString(),
    PDN_REDIS_URL: REDIS_URL,
    PDN_REDIS_KEY_PREFIX: keyPrefix,
    PDN_S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    PDN_S3_BUCKET: 'pdn',
    PDN_S3_REGION: 'us-east-1',
    PDN_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  // One API process first: it brings the schema up; the others start beside it.
  const apis = [await startProcess('api', env)];
  apis.push(await startProcess('api', env));
  await startProcess('worker', env);
  const port = await startProxy(apis, Number(process.env.PDN_STACK_PORT ?? 0));
  const key = await new Promise((resolve, reject) => {
    const admin = spawn(
      process.execPath,
      [SERVER_BIN, 'keys', 'create', '--user', 'stack', '--plan', 'premium'],
      { env, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    admin.stdout.on('data', (chunk) => (out += chunk));
    admin.once('exit', (code) =>
      code === 0 ? resolve(out.trim().split('\n').pop()) : reject(new Error('keys create failed')),
    );
  });
  console.log(`\npdn stack: 2 API processes (${apis.join(', ')}) and a worker, PostgreSQL database ${database}, Redis prefix ${keyPrefix}, s3rver on ${s3Port}
URL: http://127.0.0.1:${port}
API key: ${key}
Try: curl -H "Authorization: Bearer ${key}" -F "files[]=@examples/a.pdf" -F "files[]=@examples/b.pdf" http://127.0.0.1:${port}/api/v1/merge
Ctrl-C stops it all.`);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    stop().then(() => process.exit(0));
  });
main().catch(async (error) => {
  console.error(`npm run stack: ${error.message}`);
  await stop();
  process.exitCode = 1;
});
