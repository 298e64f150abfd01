// `pdn-server` refuses arguments and options its commands do not take, with exit code 2 and before
// touching the accounts (QA: `keys create --user x extra-arg` created the key and exited 0). Runs the
// built binary, as operators do.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openAccounts } from './accounts/index.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
if (!existsSync(BIN))
  throw new Error('pdn-server runs from dist/: build @pdn/server before running these tests');

const dataDir = mkdtempSync(join(tmpdir(), 'pdn-bin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function pdnServer(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    // A `start` that is wrongly accepted serves until killed: on a free port, and stopped after a while.
    env: { ...process.env, PDN_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const refused: [string[], RegExp][] = [
  [['keys', 'list', 'extra'], /keys list takes no arguments; got 'extra'/],
  [['keys', 'create', '--user', 'zed', 'extra-arg'], /keys create takes no arguments; got 'extra-arg'/],
  [['users', 'set-plan', 'zed', 'free', '--user', 'zzz'], /users set-plan does not take --user/],
  [['users', 'set-plan', 'zed'], /users set-plan takes exactly NAME PLAN; got 'zed'/],
  [['keys', 'revoke', 'key_a', 'key_b'], /keys revoke takes exactly ID; got 'key_a key_b'/],
  [['keys', 'list', '--test'], /keys list does not take --test/],
  [['start', 'now'], /start takes no arguments; got 'now'/],
  [['start', '--plan', 'free'], /start does not take --plan/],
  [['keys', 'burn'], /unknown command 'keys burn'/],
];

describe('pdn-server usage errors', () => {
  it.each(refused)('refuses %j with exit 2 and usage', (args, message) => {
    const run = pdnServer(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run pdn-server --help for usage\./);
    expect(run.stdout).toBe('');
  });

  it('created no user and no key for any refused command', () => {
    const accounts = openAccounts(dataDir);
    try {
      expect(accounts.keys.list(undefined)).toEqual([]);
    } finally {
      accounts.close();
    }
  });

  it('still runs a well-formed command', () => {
    const run = pdnServer('keys', 'create', '--user', 'zed', '--plan', 'free', '--test');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^pdn_test_[0-9a-f]{32}$/);
  });
});
