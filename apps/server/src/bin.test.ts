// `pdn-server` refuses arguments and options its commands do not take, with exit code 2 and before
// touching the accounts (QA: `keys create --user x extra-arg` created the key and exited 0), and its
// admin commands work only on a data folder that has a database, which they name (run in
// another folder, `keys create` made a new empty database there). Runs the built binary, as operators do.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqliteForTest } from './database/contract-harness.js';
import { hasDatabase } from './database/sqlite/index.js';

// Each case spawns Node once or twice: however long that takes under load, it is not a failure.
vi.setConfig({ testTimeout: 0 });

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
if (!existsSync(BIN))
  throw new Error('pdn-server runs from dist/: build @pdn/server before running these tests');

const root = mkdtempSync(join(tmpdir(), 'pdn-bin-'));
const dataDir = join(root, 'data');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder under the test's root, created empty. */
function folder(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/**
 * Runs `pdn-server args` to its end. No time limit (a loaded machine is slow, not wrong): a `start`
 * that is wrongly accepted is stopped as soon as it says it listens, and the test sees that it did.
 */
function pdnServer(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PDN_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...options.env },
    cwd: options.cwd ?? root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (/listening/.test(stdout)) child.kill();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** What `start` leaves behind, without serving: the database. */
function createDatabase(dir: string): void {
  void openSqliteForTest(dir).close();
}

beforeAll(() => createDatabase(dataDir));

const refused: [string[], RegExp][] = [
  [['keys', 'list', 'extra'], /keys list takes no arguments; got 'extra'/],
  [['keys', 'create', '--user', 'zed', 'extra-arg'], /keys create takes no arguments; got 'extra-arg'/],
  [['users', 'set-plan', 'zed', 'free', '--user', 'zzz'], /users set-plan does not take --user/],
  [['users', 'set-plan', 'zed'], /users set-plan takes exactly USER PLAN; got 'zed'/],
  [['keys', 'revoke', 'key_a', 'key_b'], /keys revoke takes exactly ID; got 'key_a key_b'/],
  [['keys', 'list', '--test'], /keys list does not take --test/],
  [['start', 'now'], /start takes no arguments; got 'now'/],
  [['start', '--plan', 'free'], /start does not take --plan/],
  [['keys', 'burn'], /unknown command 'keys burn'/],
];

describe('pdn-server usage errors', () => {
  it.each(refused)('refuses %j with exit 2 and usage', async (args, message) => {
    const run = await pdnServer(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run pdn-server --help for usage\./);
    expect(run.stdout).toBe('');
  });

  it('created no user and no key for any refused command', async () => {
    const accounts = openSqliteForTest(dataDir);
    try {
      expect(await accounts.keys.list()).toEqual([]);
    } finally {
      await accounts.close();
    }
  });

  it('still runs a well-formed command', async () => {
    const run = await pdnServer(['keys', 'create', '--user', 'zed', '--plan', 'free', '--test']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^pdn_test_[0-9a-f]{32}$/);
  });
});

describe('pdn-server admin commands and the data folder', () => {
  const admin: string[][] = [
    ['keys', 'create', '--user', 'zed'],
    ['keys', 'list'],
    ['keys', 'revoke', 'key_0123'],
    ['users', 'set-plan', 'zed', 'free'],
  ];

  it.each(admin)('%s %s refuses a data folder without a database and creates nothing', async (...args) => {
    const empty = folder(`empty-${args.join('-')}`);
    const run = await pdnServer(args, { env: { PDN_DATA_DIR: empty } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`no database in the data folder ${empty}; admin commands never create one`);
    expect(run.stderr).toMatch(/Start the server once/);
    expect(run.stdout).toBe('');
    expect(readdirSync(empty)).toEqual([]);
  });

  it('refuses a data folder that does not exist, and leaves it so', async () => {
    const missing = join(root, 'missing');
    expect((await pdnServer(['keys', 'list'], { env: { PDN_DATA_DIR: missing } })).status).toBe(1);
    expect(existsSync(missing)).toBe(false);
  });

  it('names the data folder it used, on stderr', async () => {
    const run = await pdnServer(['keys', 'list']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(`Data folder: ${dataDir}\n`);
    expect(run.stdout).toMatch(/^ID\s+USER/);
  });

  it('uses $XDG_DATA_HOME/pdn by default, whatever folder it runs in', async () => {
    const xdg = folder('xdg');
    createDatabase(join(xdg, 'pdn'));
    const env = { PDN_DATA_DIR: '', XDG_DATA_HOME: xdg };
    const made = await pdnServer(['keys', 'create', '--user', 'xena'], { env, cwd: folder('one') });
    expect(made.status).toBe(0);
    expect(made.stderr).toContain(`Data folder: ${join(xdg, 'pdn')}`);
    const listed = await pdnServer(['keys', 'list', '--user', 'xena'], { env, cwd: folder('two') });
    expect(listed.stdout).toContain('xena');
  });

  it('says how to carry over a database left in ./.pdn-data, the former default', async () => {
    const project = folder('project');
    createDatabase(join(project, '.pdn-data'));
    const xdg = folder('xdg-new');
    const run = await pdnServer(['keys', 'list'], {
      env: { PDN_DATA_DIR: '', XDG_DATA_HOME: xdg },
      cwd: project,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${join(project, '.pdn-data')} holds the database of an earlier pdn-server`);
    expect(run.stderr).toContain(`mkdir -p ${xdg} && mv ${join(project, '.pdn-data')} ${join(xdg, 'pdn')}`);
    expect(hasDatabase(join(xdg, 'pdn'))).toBe(false);
  });

  it('start refuses to begin a new database beside ./.pdn-data, and serves nothing', async () => {
    const project = folder('project-start');
    createDatabase(join(project, '.pdn-data'));
    const xdg = folder('xdg-start');
    const run = await pdnServer(['start'], { env: { PDN_DATA_DIR: '', XDG_DATA_HOME: xdg }, cwd: project });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`not creating a new, empty database in the data folder ${join(xdg, 'pdn')}`);
    expect(run.stdout).not.toMatch(/listening/);
    expect(readdirSync(xdg)).toEqual([]);
  });
});

describe('pdn-server and the shared backends', () => {
  it('start refuses a partial set, naming what is missing, and serves nothing', async () => {
    const run = await pdnServer(['start'], { env: { PDN_REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /PDN_REDIS_URL is set, .* also needs PDN_DATABASE_URL, PDN_S3_BUCKET, PDN_S3_REGION, PDN_SIGNING_SECRET/,
    );
    expect(run.stdout).not.toMatch(/listening/);
  });

  it('accounts copy needs the shared backends and --from', async () => {
    expect((await pdnServer(['accounts', 'copy'])).stderr).toMatch(/accounts copy needs --from DATA_DIR/);
    const embedded = await pdnServer(['accounts', 'copy', '--from', dataDir]);
    expect(embedded.status).toBe(1);
    expect(embedded.stderr).toMatch(/accounts copy needs the shared backends configured/);
  });
});
