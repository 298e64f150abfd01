// The embedded server never loads the shared backends' client libraries (STYLE.md 20):
// in a fresh process over the built code, opening the embedded backends leaves pg, ioredis and bullmq
// (the job queue) out of the module cache (all are CommonJS, so an import of any lands
// there), and opening the shared ones loads them, which shows the check can see them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
if (!existsSync(new URL(dist('backends/index.js'))))
  throw new Error('these tests run the built code: build @pdn/server first');

const dataDir = mkdtempSync(join(tmpdir(), 'pdn-optional-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const SCRIPT = `
import { createRequire } from 'node:module';
import { Cleanups, openBackends } from '${dist('backends/index.js')}';
import { loadConfig } from '${dist('config.js')}';
import { createLogger } from '${dist('logger.js')}';
const log = createLogger('quiet');
const cleanups = new Cleanups(log);
await openBackends(loadConfig(JSON.parse(process.argv[1])), log, cleanups).catch(() => {});
await cleanups.run();
const names = Object.keys(createRequire(import.meta.url).cache)
  .map((path) => /node_modules\\/(pg|ioredis|bullmq)\\//.exec(path)?.[1])
  .filter(Boolean);
console.log(JSON.stringify([...new Set(names)].sort()));
`;

function librariesLoaded(env: Record<string, string>): string[] {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT, JSON.stringify(env)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

it.each([
  ['embedded', {}, []],
  [
    'shared (nothing listening: the start fails, the libraries are loaded all the same)',
    {
      PDN_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      PDN_REDIS_URL: 'redis://127.0.0.1:1',
      PDN_S3_BUCKET: 'none',
      PDN_S3_REGION: 'us-east-1',
      PDN_SIGNING_SECRET: 's'.repeat(32),
    },
    ['bullmq', 'ioredis', 'pg'],
  ],
])('%s', (_name, env, want) => {
  expect(librariesLoaded({ PDN_DATA_DIR: dataDir, ...env })).toEqual(want);
});
