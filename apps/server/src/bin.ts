#!/usr/bin/env node
// `pdn-server`: starts the server and is the "account area" of the v1 specification (issue #2):
// users, plans and API keys, managed on the same data folder while the server runs. Commands throw;
// this entry point alone turns failures into exit codes (2: usage, 1: anything else).
import { parseArgs } from 'node:util';
import { type Accounts, InvalidUserNameError, isPlan, PLANS, type Plan } from './accounts/index.js';
import { ConfigError, loadConfig } from './config.js';
import { checkFormerDataFolder, openExistingAccounts } from './data-folder.js';
import { createLogger } from './logger.js';
import { serveUntilSignalled } from './main.js';

const USAGE = `Usage: pdn-server <command>

Commands:
  start                                    Start the HTTP server (PORT, HOST, PDN_DATA_DIR, ...)
  keys create --user NAME [--plan PLAN] [--test]
                                           Create an API key (and the user, on PLAN, if new);
                                           the key is the last line printed
  keys list [--user NAME]                  List keys (never the keys themselves)
  keys revoke ID                           Revoke a key by its id (key_...)
  users set-plan NAME PLAN                 Change a user's plan
  --help                                   Show this help

PLAN is one of ${PLANS.join(', ')} (default premium for new users).
All commands use the data folder PDN_DATA_DIR (default $XDG_DATA_HOME/pdn, else ~/.local/share/pdn),
also while the server runs. Only start creates its database.`;

class UsageError extends Error {
  override name = 'UsageError';
}

type OptionName = 'user' | 'plan' | 'test';

/**
 * What each command takes: its positional arguments, by name, and its options. Anything else is a
 * usage error before the command runs (QA: `keys create --user x extra-arg` created the key, and
 * `keys list extra` exited 0).
 */
const COMMANDS: Readonly<Record<string, { args: readonly string[]; options: readonly OptionName[] }>> = {
  start: { args: [], options: [] },
  'keys create': { args: [], options: ['user', 'plan', 'test'] },
  'keys list': { args: [], options: ['user'] },
  'keys revoke': { args: ['ID'], options: [] },
  'users set-plan': { args: ['NAME', 'PLAN'], options: [] },
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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Throws a UsageError unless `command` exists and got exactly its arguments and options. */
function checkUsage(
  command: string,
  args: readonly string[],
  values: ReturnType<typeof parse>['values'],
): void {
  const spec = COMMANDS[command];
  if (spec === undefined) throw new UsageError(`unknown command '${command}'`);
  if (args.length !== spec.args.length) {
    const wanted = spec.args.length === 0 ? 'no arguments' : `exactly ${spec.args.join(' ')}`;
    throw new UsageError(
      `${command} takes ${wanted}; got ${args.length === 0 ? 'none' : `'${args.join(' ')}'`}`,
    );
  }
  for (const option of ['user', 'plan', 'test'] as const) {
    if (values[option] !== undefined && !spec.options.includes(option))
      throw new UsageError(`${command} does not take --${option}`);
  }
}

function planArg(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (!isPlan(value)) throw new UsageError(`unknown plan '${value}': use one of ${PLANS.join(', ')}`);
  return value;
}

function day(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function keysCreate(
  accounts: Accounts,
  userName: string | undefined,
  plan: Plan | undefined,
  test: boolean,
): Promise<void> {
  if (userName === undefined) throw new UsageError('keys create needs --user NAME');
  const { user, created } = await accounts.users.ensure(userName, plan ?? 'premium');
  if (created) console.log(`Created user ${user.name} on the ${user.plan} plan.`);
  else if (plan !== undefined && plan !== user.plan) {
    console.error(
      `Note: ${user.name} stays on the ${user.plan} plan; change it with: pdn-server users set-plan ${user.name} ${plan}`,
    );
  }
  const { key, record } = await accounts.keys.create(user.id, test ? 'test' : 'live', '');
  console.log(
    `Created ${record.kind} key ${record.id} for ${user.name}. Keep it safe: it is shown only once.`,
  );
  console.log(key);
}

async function keysList(accounts: Accounts, userName: string | undefined): Promise<void> {
  let userId: number | undefined;
  if (userName !== undefined) {
    userId = (await accounts.users.byName(userName))?.id;
    if (userId === undefined) return printTable([KEYS_HEADER]);
  }
  const rows = (await accounts.keys.list(userId)).map((key) => [
    key.id,
    key.owner,
    key.kind,
    key.prefix,
    day(key.createdAt),
    day(key.lastUsedAt),
    day(key.revokedAt),
  ]);
  printTable([KEYS_HEADER, ...rows]);
}

const KEYS_HEADER = ['ID', 'USER', 'KIND', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'];

function printTable(table: string[][]): void {
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of table)
    console.log(
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}

async function runAdmin(
  command: string,
  positionals: string[],
  values: ReturnType<typeof parse>['values'],
): Promise<void> {
  const { dataDir } = loadConfig();
  const accounts = openExistingAccounts(dataDir, process.cwd());
  // On stderr: stdout stays what scripts read (the key is its last line, the listing its table).
  console.error(`Data folder: ${dataDir}`);
  try {
    const [id = '', name = '', plan] = [positionals[0], positionals[0], positionals[1]];
    switch (command) {
      case 'keys create':
        await keysCreate(accounts, values.user, planArg(values.plan), values.test === true);
        return;
      case 'keys list':
        await keysList(accounts, values.user);
        return;
      case 'keys revoke':
        if (!(await accounts.keys.revoke(id)))
          throw new Error(`no active key with id ${id} (see pdn-server keys list)`);
        console.log(`Revoked key ${id}.`);
        return;
      case 'users set-plan': {
        const newPlan = planArg(plan);
        if (newPlan === undefined) throw new UsageError('users set-plan needs NAME and PLAN');
        const user = await accounts.users.byName(name);
        if (!user || !(await accounts.users.setPlan(user.id, newPlan)))
          throw new Error(`no user named ${name}`);
        console.log(`${name} is now on the ${newPlan} plan.`);
        return;
      }
      default:
        throw new Error(`command '${command}' has no implementation`);
    }
  } finally {
    await accounts.close();
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
    const config = loadConfig();
    checkFormerDataFolder(config.dataDir, process.cwd());
    await serveUntilSignalled(config, createLogger(config.logLevel));
    return;
  }
  await runAdmin(command, args, values);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`pdn-server: ${error.message}\nRun pdn-server --help for usage.`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError || error instanceof InvalidUserNameError) {
    console.error(`pdn-server: ${error.message}`);
    process.exitCode = 2;
  } else {
    console.error(`pdn-server: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
});
