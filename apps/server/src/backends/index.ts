// The composition module (issue #15; STYLE.md 14, 19, 20): chooses the backends the configuration
// names, opens and starts their clients, and registers each one's cleanup. Embedded: the SQLite file
// and the outputs folder, exactly as before. Shared: PostgreSQL, Redis and S3, whose code and client
// libraries are imported only here, only then (shared.ts), so the embedded default never loads them.
import type { Accounts, AccountsOptions } from '../accounts/index.js';
import { hasDatabase, openSqliteAccounts } from '../accounts/sqlite/index.js';
import type { Config } from '../config.js';
import { openExistingAccounts } from '../data-folder.js';
import type { JobDispatch } from '../jobs/dispatch.js';
import type { Logger } from '../logger.js';
import type { RoleParts } from '../role.js';
import type { SharedStorage } from '../storage/index.js';
import type { Cleanups } from './cleanups.js';

export { Cleanups } from './cleanups.js';

export interface Backends {
  accounts: Accounts;
  /** Where outputs and jobs' inputs go when they are shared; absent: the data folder. */
  sharedStorage?: SharedStorage;
  /**
   * How jobs reach the processes that run them when those are shared (BullMQ, issue #16), for a
   * process playing `parts` with `slots` jobs at once; absent: the embedded process runs its own.
   */
  openDispatch?: (parts: RoleParts, slots: number) => JobDispatch;
}

function accountsOptions(config: Config): AccountsOptions {
  return { sessionLimits: config.account.sessionLimits };
}

/** Everything a serving process holds: accounts, rate limits, and (shared) the outputs bucket. */
export async function openBackends(config: Config, log: Logger, cleanups: Cleanups): Promise<Backends> {
  if (config.backends.kind === 'shared') {
    const { openSharedBackends } = await import('./shared.js');
    return openSharedBackends(config.backends, accountsOptions(config), log, cleanups);
  }
  const accounts = openSqliteAccounts(config.dataDir, accountsOptions(config));
  cleanups.add('accounts database (SQLite)', () => accounts.close());
  log.info('backends: embedded', { data_dir: config.dataDir });
  return { accounts };
}

/**
 * The accounts alone, for the admin commands: the existing SQLite database of the data folder (they
 * never create one, issue #10), or the shared PostgreSQL database (made up to date if need be).
 */
export async function openAdminAccounts(config: Config, log: Logger, cleanups: Cleanups): Promise<Accounts> {
  if (config.backends.kind === 'shared') {
    const { openSharedAccounts } = await import('./shared.js');
    return openSharedAccounts(config.backends.databaseUrl, accountsOptions(config), log, cleanups);
  }
  const accounts = openExistingAccounts(config.dataDir, process.cwd());
  cleanups.add('accounts database (SQLite)', () => accounts.close());
  return accounts;
}

/**
 * `pdn-server accounts copy --from DATA_DIR`: the users and keys of a SQLite data folder into the
 * configured PostgreSQL database. The counts copied; throws when either side is not what it needs.
 */
export async function copyAccountsIntoShared(
  config: Config,
  fromDataDir: string,
  log: Logger,
  cleanups: Cleanups,
): Promise<{ users: number; keys: number }> {
  if (config.backends.kind !== 'shared')
    throw new Error(
      'accounts copy needs the shared backends configured (PDN_DATABASE_URL and the rest, README "Shared backends")',
    );
  if (!hasDatabase(fromDataDir)) throw new Error(`no database in ${fromDataDir}: nothing to copy`);
  const { copyIntoSharedAccounts } = await import('./shared.js');
  return copyIntoSharedAccounts(config.backends.databaseUrl, fromDataDir, log, cleanups);
}
