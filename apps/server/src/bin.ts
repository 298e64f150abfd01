#!/usr/bin/env node
// `pdn-server`: starts the server and manages its accounts from the command line:
// users, plans, API keys and one-time sign-in links, on the same data folder while the server runs.
// Commands throw; this entry point alone turns failures into exit codes (2: usage, 1: anything else).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Accounts,
  InvalidEmailError,
  InvalidKeyNameError,
  InvalidUserNameError,
  isPlan,
  PLANS,
  type Plan,
} from './accounts/index.js';
import { keysCreate, keysList, keysRevoke } from './admin/keys-commands.js';
import { UsageError } from './admin/usage-error.js';
import {
  usersCreate,
  usersList,
  usersResetPassword,
  usersSetEmail,
  usersSetPlan,
} from './admin/users-commands.js';
import { webhooksSecret } from './admin/webhooks-commands.js';
import { Cleanups, copyAccountsIntoShared, openAdminAccounts } from './backends/index.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { checkFormerDataFolder } from './data-folder.js';
import { createLogger } from './logger.js';
import { parseRole } from './role.js';

const USAGE = `Usage: pdn-server <command>

Commands:
  start [--role all|api|worker]            Start the server (PORT, HOST, PDN_DATA_DIR, ...): all of it
                                           (default), or one role of a scaled-out deployment, which
                                           needs the shared backends (README "Scaling out")
  keys create --user USER [--name NAME] [--plan PLAN] [--test]
                                           Create an API key (and the user, on PLAN, if new);
                                           the key is the last line printed
  keys list [--user USER]                  List keys (never the keys themselves)
  keys revoke ID                           Revoke a key by its id (key_...)
  users create --email EMAIL [--plan PLAN] Create a user who signs in to the account area; prints a
                                           one-time link to choose a password (default plan free)
  users list                               List users
  users set-email USER EMAIL               Give a user an email to sign in with
  users reset-password USER                Print a one-time link to choose a new password
  users set-plan USER PLAN                 Change a user's plan
  webhooks secret USER [--rotate]          Print the user's webhook secret (made on first use), or
                                           a new one; the previous one signs for 24 hours more
  accounts copy --from DATA_DIR            Copy the users and keys of an embedded data folder into
                                           the shared PostgreSQL database (PDN_DATABASE_URL, ...)
  --help                                   Show this help

USER is a user's name or email. PLAN is one of ${PLANS.join(', ')} (default premium for users that
keys create makes). Links start with PDN_PUBLIC_URL, else where the server said it listens when it
last started.
All commands use the data folder PDN_DATA_DIR (default $XDG_DATA_HOME/pdn, else ~/.local/share/pdn),
also while the server runs. Only start creates its database.`;

type OptionName = 'user' | 'plan' | 'test' | 'name' | 'email' | 'from' | 'rotate' | 'role';
const OPTION_NAMES: readonly OptionName[] = [
  'user',
  'plan',
  'test',
  'name',
  'email',
  'from',
  'rotate',
  'role',
];

/**
 * What each command takes: its positional arguments, by name, and its options. Anything else is a
 * usage error before the command runs (QA: `keys create --user x extra-arg` created the key, and
 * `keys list extra` exited 0).
 */
const COMMANDS: Readonly<Record<string, { args: readonly string[]; options: readonly OptionName[] }>> = {
  start: { args: [], options: ['role'] },
  'keys create': { args: [], options: ['user', 'plan', 'test', 'name'] },
  'keys list': { args: [], options: ['user'] },
  'keys revoke': { args: ['ID'], options: [] },
  'users create': { args: [], options: ['email', 'plan'] },
  'users list': { args: [], options: [] },
  'users set-email': { args: ['USER', 'EMAIL'], options: [] },
  'users reset-password': { args: ['USER'], options: [] },
  'users set-plan': { args: ['USER', 'PLAN'], options: [] },
  'webhooks secret': { args: ['USER'], options: ['rotate'] },
  'accounts copy': { args: [], options: ['from'] },
};

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        user: { type: 'string' },
        plan: { type: 'string' },
        test: { type: 'boolean' },
        name: { type: 'string' },
        email: { type: 'string' },
        rotate: { type: 'boolean' },
        from: { type: 'string' },
        role: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

type Values = ReturnType<typeof parse>['values'];

/** Throws a UsageError unless `command` exists and got exactly its arguments and options. */
function checkUsage(command: string, args: readonly string[], values: Values): void {
  const spec = COMMANDS[command];
  if (spec === undefined) throw new UsageError(`unknown command '${command}'`);
  if (args.length !== spec.args.length) {
    const wanted = spec.args.length === 0 ? 'no arguments' : `exactly ${spec.args.join(' ')}`;
    throw new UsageError(
      `${command} takes ${wanted}; got ${args.length === 0 ? 'none' : `'${args.join(' ')}'`}`,
    );
  }
  for (const option of OPTION_NAMES) {
    if (values[option] !== undefined && !spec.options.includes(option))
      throw new UsageError(`${command} does not take --${option}`);
  }
}

function planArg(value: string): Plan;
function planArg(value: string | undefined): Plan | undefined;
function planArg(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (!isPlan(value)) throw new UsageError(`unknown plan '${value}': use one of ${PLANS.join(', ')}`);
  return value;
}

async function run(command: string, accounts: Accounts, config: Config, args: string[], values: Values) {
  const [first = '', second = ''] = args;
  switch (command) {
    case 'keys create':
      return keysCreate(accounts, {
        user: values.user,
        plan: planArg(values.plan),
        test: values.test === true,
        name: values.name,
      });
    case 'keys list':
      return keysList(accounts, values.user);
    case 'keys revoke':
      return keysRevoke(accounts, first);
    case 'users create':
      return usersCreate(accounts, config, { email: values.email, plan: planArg(values.plan) });
    case 'users list':
      return usersList(accounts);
    case 'users set-email':
      return usersSetEmail(accounts, first, second);
    case 'users reset-password':
      return usersResetPassword(accounts, config, first);
    case 'users set-plan':
      return usersSetPlan(accounts, first, planArg(second));
    case 'webhooks secret':
      return webhooksSecret(accounts, first, values.rotate === true);
    default:
      throw new Error(`command '${command}' has no implementation`);
  }
}

/** `accounts copy --from DATA_DIR`: embedded to shared, users, plans and keys. */
async function copyAccounts(from: string | undefined): Promise<void> {
  if (from === undefined) throw new UsageError('accounts copy needs --from DATA_DIR');
  const config = loadConfig();
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const cleanups = new Cleanups(log);
  try {
    const source = resolve(from);
    const { users, keys } = await copyAccountsIntoShared(config, source, log, cleanups);
    console.log(`Copied ${users} users and ${keys} API keys from ${source} into PostgreSQL.`);
  } finally {
    await cleanups.run();
  }
}

async function runAdmin(command: string, args: string[], values: Values): Promise<void> {
  if (command === 'accounts copy') return copyAccounts(values.from);
  const config = loadConfig();
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const cleanups = new Cleanups(log);
  try {
    const accounts = await openAdminAccounts(config, log, cleanups);
    // On stderr: stdout stays what scripts read (the key or link is its last line, a listing its table).
    console.error(
      config.backends.kind === 'shared'
        ? 'Accounts: PostgreSQL (PDN_DATABASE_URL)'
        : `Data folder: ${config.dataDir}`,
    );
    await run(command, accounts, config, args, values);
  } finally {
    await cleanups.run();
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  const [group, action, ...rest] = positionals;
  if (values.help || group === 'help' || group === undefined) {
    console.log(USAGE);
    if (group === undefined && !values.help) process.exitCode = 2;
    return;
  }
  const command = group === 'start' ? group : `${group} ${action ?? ''}`.trim();
  const args = group === 'start' ? positionals.slice(1) : rest;
  checkUsage(command, args, values);
  if (command === 'start') {
    const loaded = loadConfig();
    const config = { ...loaded, role: parseRole(values.role, loaded.backends) };
    checkFormerDataFolder(config.dataDir, process.cwd());
    // Loaded for `start` only: the server's modules are most of what a process spends starting, and
    // an admin command (one each time a key is made) needs none of them.
    const { serveUntilSignalled } = await import('./main.js');
    await serveUntilSignalled(config, createLogger(config.logLevel, undefined, config.logFormat));
    return;
  }
  await runAdmin(command, args, values);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`pdn-server: ${error.message}\nRun pdn-server --help for usage.`);
    process.exitCode = 2;
  } else if (
    error instanceof ConfigError ||
    error instanceof InvalidUserNameError ||
    error instanceof InvalidEmailError ||
    error instanceof InvalidKeyNameError
  ) {
    console.error(`pdn-server: ${error.message}`);
    process.exitCode = 2;
  } else {
    console.error(`pdn-server: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
});
