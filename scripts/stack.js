// `npm run stack`: a local scaled-out pdn to try. The machine's PostgreSQL and Redis (a
// database and a key prefix of this run's own), an S3 bucket on s3rver, two `--role api` processes
// and two `--role worker` processes on one data folder (jobs pass over BullMQ in that Redis), behind
// a small round-robin proxy. Prints the URL and an API key, each process's pid, and each worker's port
// (/healthz, /readyz, /metrics); Ctrl-C stops every process as SIGTERM does (running jobs get their
// grace, a second Ctrl-C kills them at once), then removes the database, the keys and the folders.
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

/** The server processes started, stopped together (stopProcesses). */
const children = [];

/** Starts `pdn-server start --role ROLE` on a free port; resolves once ready with its URL and pid. */
function startProcess(role, env) {
  // In a process group of its own: a terminal's Ctrl-C goes to this script's group, and this script
  // alone, so each server gets one SIGTERM from stopProcesses() and stops gracefully. In the script's
  // group it got the Ctrl-C as well, then the SIGTERM as a second signal, which ends a server at once.
  const child = spawn(process.execPath, [SERVER_BIN, 'start', '--role', role], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A process killed by a signal (say a worker killed -9 to watch its job move) has no exit code,
  // only a signal code: without checking both, Ctrl-C would wait for an exit that already happened.
  const ended = new Promise((resolve) => child.once('exit', resolve));
  children.push({ child, ended, running: () => child.exitCode === null && child.signalCode === null });
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`--role ${role} exited (${code}):\n${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      // A worker's line names its port too, which serves only /healthz, /readyz and /metrics.
      const listening = /pdn (?:server listening|worker running) on .*?(http:\/\/\S+)\n/.exec(output);
      if (listening) resolve({ url: listening[1], pid: child.pid });
    });
    child.once('exit', (code, signal) => {
      if (!stopping)
        console.error(
          `pdn stack: --role ${role} (pid ${child.pid}) exited (${signal ?? code}); the others run on`,
        );
    });
  });
}

/** SIGTERM to every server still running, all at once; resolves when they have exited. */
async function stopProcesses() {
  const running = children.filter(({ running }) => running());
  for (const { child } of running) child.kill('SIGTERM');
  await Promise.all(running.map(({ ended }) => ended));
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
  cleanups.push(stopProcesses);
  const databaseUrl = new URL(DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  const env = {
    // The proxy reads no /readyz, so an API process's drain delay would only hold Ctrl-C up (unless set).
    PDN_DRAIN_DELAY_MS: '0',
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
    // On Node 20 the AWS SDK prints a multi-line notice that its 2027 releases will need Node 22,
    // once per process: four of them would bury the URL and the key (README, "Shared backends").
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  // One API process first: it brings the schema up; the others start beside it.
  const apis = [await startProcess('api', env)];
  apis.push(await startProcess('api', env));
  const workers = await Promise.all([startProcess('worker', env), startProcess('worker', env)]);
  const port = await startProxy(
    apis.map((api) => api.url),
    Number(process.env.PDN_STACK_PORT ?? 0),
  );
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
  console.log(`\npdn stack: PostgreSQL database ${database}, Redis prefix ${keyPrefix}, s3rver on ${s3Port}, data folder ${root}
2 API processes:
${apis.map((api) => `  pid ${api.pid}: ${api.url}`).join('\n')}
2 workers, each serving /healthz, /readyz and /metrics (kill -9 one's pid to watch its job move):
${workers.map((worker) => `  pid ${worker.pid}: ${worker.url}`).join('\n')}
URL: http://127.0.0.1:${port}
API key: ${key}
Try: curl -H "Authorization: Bearer ${key}" -F "files[]=@examples/a.pdf" -F "files[]=@examples/b.pdf" http://127.0.0.1:${port}/api/v1/merge
Ctrl-C stops it all.`);
}

let stopping = false;
// SIGHUP too: a closed terminal would otherwise end this script and leave its servers running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    if (stopping) {
      for (const { child, running } of children) if (running()) child.kill('SIGKILL');
      return;
    }
    stopping = true;
    if (children.some(({ running }) => running()))
      console.log('\npdn stack: stopping (running jobs get their grace; Ctrl-C again to kill them at once)');
    stop().then(() => process.exit(0));
  });
main().catch(async (error) => {
  console.error(`npm run stack: ${error.message}`);
  await stop();
  process.exitCode = 1;
});
