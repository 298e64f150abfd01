// `npm run stack` ("prints its URL and a key, and stops it all on Ctrl-C"): scripts/stack.js
// started as a terminal starts it, in a process group of its own, on the machine's PostgreSQL and Redis.
// Its URL and key work (a merge through the balancer, once per API process), its workers say their
// role; then a Ctrl-C to the group, as a terminal sends it, leaves no process, database, Redis key
// or folder of the stack behind. Skips, saying why, without PostgreSQL or Redis.
import { type ChildProcess, spawn } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { file, form } from './harness/form.js';
import { sharedServicesMissing } from './harness/shared-services.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.PDN_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const REDIS_URL = process.env.PDN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What the stack printed once it was up. */
interface Printed {
  url: string;
  key: string;
  database: string;
  keyPrefix: string;
  folder: string;
  apis: number[];
  workers: { pid: number; url: string }[];
}

function parse(output: string): Printed {
  const one = (pattern: RegExp) => {
    const found = pattern.exec(output)?.[1];
    if (found === undefined) throw new Error(`the stack did not print ${pattern}:\n${output}`);
    return found;
  };
  const section = (title: string) =>
    [...(output.split(title)[1] ?? '').matchAll(/^ {2}pid (\d+): (http:\/\/\S+)$/gm)]
      .map((line) => ({ pid: Number(line[1]), url: line[2] as string }))
      .slice(0, 2);
  return {
    url: one(/^URL: (\S+)$/m),
    key: one(/^API key: (\S+)$/m),
    database: one(/PostgreSQL database (\w+)/),
    keyPrefix: one(/Redis prefix (\S+),/),
    folder: one(/data folder (\S+)$/m),
    apis: section('API processes:').map((api) => api.pid),
    workers: section('workers,'),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf((await sharedServicesMissing()) !== undefined)('npm run stack (scripts/stack.js)', () => {
  let stack: ChildProcess | undefined;

  afterAll(() => {
    // Only when the test failed before its Ctrl-C: the whole group, whatever it started.
    if (stack?.pid !== undefined && stack.exitCode === null) process.kill(-stack.pid, 'SIGKILL');
  });

  it('serves through its balancer with the key it prints, and leaves nothing behind on Ctrl-C', async () => {
    stack = spawn(process.execPath, ['scripts/stack.js'], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PDN_STACK_DATABASE_URL: DATABASE_URL, PDN_STACK_REDIS_URL: REDIS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      stack?.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let output = '';
    stack.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      stack?.stdout?.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Ctrl-C stops it all.')) resolve();
      });
      void exited.then(() => reject(new Error(`the stack ended before it was up:\n${output}`)));
    });
    const printed = parse(output);
    expect([printed.apis.length, printed.workers.length]).toEqual([2, 2]);

    // The README's first try, once per API process (the balancer takes turns).
    const example = (name: string) => readFile(join(ROOT, 'examples', name));
    for (const _ of printed.apis) {
      const merged = await call(printed.url, '/api/v1/merge', {
        key: printed.key,
        body: form(
          file('files[]', await example('a.pdf'), 'a.pdf'),
          file('files[]', await example('b.pdf'), 'b.pdf'),
        ),
      });
      expect(merged.status).toBe(200);
    }
    for (const worker of printed.workers) {
      const health = await call<{ data: { role: string } }>(worker.url, '/healthz');
      expect(health.json.data.role).toBe('worker');
    }

    // A terminal's Ctrl-C goes to the foreground process group.
    process.kill(-(stack.pid as number), 'SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });

    const pids = [...printed.apis, ...printed.workers.map((worker) => worker.pid)];
    expect(pids.filter(alive)).toEqual([]);
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [printed.database]);
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.keys(`${printed.keyPrefix}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
    await expect(access(printed.folder)).rejects.toThrow(/ENOENT/);
  }, 180_000);
});
