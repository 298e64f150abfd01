// What `pdn-server start` prints before its "listening" line: on the very first start the key it made
// and a curl line to try it, on every later one how to get a key. Every command in it works as printed
// from another terminal: its URLs are where the server is reached (PDN_PUBLIC_URL, else where it
// listens), and an admin command names the data folder whenever a fresh shell would look elsewhere,
// since admin commands find the server's accounts only there (they never create a database).
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Accounts } from './accounts/index.js';
import type { Config } from './config.js';

/** The SDK's and the CLI's own default: PDN_BASE_URL need not be exported for it. */
const CLIENT_DEFAULT_URL = 'http://127.0.0.1:3000';

/**
 * `npx pdn-server <args>` as it must be typed in a new terminal: with PDN_DATA_DIR when the server's
 * data folder is not the default one of a shell without XDG_DATA_HOME, or a note where the accounts
 * are in PostgreSQL (whose URL carries a password, so it is not printed).
 */
export function adminCommand(config: Config, args: string): string {
  if (config.backends.kind === 'shared')
    return `npx pdn-server ${args}   # with this server's PDN_DATABASE_URL`;
  const usual = join(homedir(), '.local', 'share', 'pdn');
  return config.dataDir === usual
    ? `npx pdn-server ${args}`
    : `PDN_DATA_DIR=${shellWord(config.dataDir)} npx pdn-server ${args}`;
}

/** The lines that point the SDK and the CLI at this server, when it is not where they look by default. */
function baseUrlLines(base: string): string[] {
  return base === CLIENT_DEFAULT_URL ? [] : [`  export PDN_BASE_URL=${base}`];
}

/** On the very first start (no users at all) create `dev` on Premium with one test key. */
export async function firstStartBanner(
  accounts: Accounts,
  config: Config,
  base: string,
): Promise<string | undefined> {
  if ((await accounts.users.count()) > 0) return undefined;
  const { user } = await accounts.users.ensure('dev', 'premium');
  const { key } = await accounts.keys.create(user.id, 'test', 'first start');
  const home =
    config.backends.kind === 'shared' ? 'PostgreSQL (PDN_DATABASE_URL)' : `the data folder ${config.dataDir}`;
  return [
    '',
    'First start: created user "dev" (premium plan) with this test API key:',
    '',
    `  ${key}`,
    '',
    'Try it (merges two PDFs; the answer holds a download URL valid for 15 minutes):',
    '',
    `  curl -H "Authorization: Bearer ${key}" -F "files[]=@examples/a.pdf" -F "files[]=@examples/b.pdf" ${base}/api/v1/merge`,
    '',
    "or with the CLI, from the repository's root:",
    '',
    `  export PDN_API_KEY=${key}`,
    ...baseUrlLines(base),
    '  npx pdn merge examples/a.pdf examples/b.pdf -o merged.pdf',
    '',
    `Users and keys live in ${home}. More keys, from the repository's root`,
    '(README.md says how to run pdn-server from anywhere):',
    '',
    `  ${adminCommand(config, 'keys create --user NAME [--plan free|premium|business|enterprise] [--test]')}`,
    '',
    `People can also sign up in a browser and make their own keys: ${base}/account`,
    '',
  ].join('\n');
}

/**
 * On every later start: the first start's key is not shown again (it is stored hashed), so say how to
 * get one (a new user restarting `npm start` had no way back to a key).
 */
export function laterStartHint(config: Config, base: string): string {
  return [
    '',
    "API keys are shown only when made. A new one, from the repository's root:",
    '',
    `  ${adminCommand(config, 'keys create --user dev --test')}`,
    '',
    `or make one in the account area: ${base}/account`,
    ...(baseUrlLines(base).length > 0
      ? ['', 'The SDK and the CLI find this server with:', '', ...baseUrlLines(base), '']
      : []),
    `API docs: ${base}/docs`,
    '',
  ].join('\n');
}

/** A path as one shell word: quoted when it holds anything a shell would read differently. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
