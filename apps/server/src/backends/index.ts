// The composition module (STYLE.md 14, 19, 20): chooses the backends the configuration
// names, opens and starts their clients, and registers each one's cleanup. Embedded: the SQLite file
// and the outputs folder, exactly as before. Shared: PostgreSQL, Redis and S3, whose code and client
// libraries are imported only here, only then (shared.ts), so the embedded default never loads them.
import { type Accounts, type AccountsOptions, composeAccounts } from '../accounts/index.js';
import type { Config } from '../config.js';
import { openExistingStores } from '../data-folder.js';
import { hasDatabase, openSqliteStores } from '../database/sqlite/index.js';
import type { Stores } from '../database/stores.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { LocalJobQueue } from '../jobs/local-job-queue.js';
import type { QueueParts } from '../jobs/open-jobs.js';
import type { Logger } from '../logger.js';
import type { SharedStorage } from '../storage/index.js';
import type { Cleanups } from './cleanups.js';

export { Cleanups } from './cleanups.js';

export interface Backends {
  /** Every record of the database: jobs, idempotency keys and webhook deliveries beside the accounts. */
  stores: Stores;
  /** The account stores with their policies above them. */
  accounts: Accounts;
  /** Where outputs and jobs' inputs go when they are shared; absent: the data folder. */
  sharedStorage?: SharedStorage;
  /** How jobs reach the processes that run them: the embedded process's own, or BullMQ's. */
  openQueue(parts: QueueParts): JobQueue;
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
  const options = accountsOptions(config);
  const stores = openSqliteStores(config.dataDir, options.now);
  cleanups.add('database (SQLite)', () => stores.close());
  log.info('backends: embedded', { data_dir: config.dataDir });
  return { stores, accounts: composeAccounts(stores, options), openQueue: openLocalQueue };
}

/** The embedded queue: the one process runs every job it takes. */
function openLocalQueue(parts: QueueParts): JobQueue {
  const { runs } = parts;
  if (runs === undefined) throw new Error('the embedded backends run jobs in the process that takes them');
  return new LocalJobQueue({ ...parts, runs });
}

/**
 * The accounts alone, for the admin commands: the existing SQLite database of the data folder (they
 * never create one, so a wrong folder is refused rather than given an empty database), or the shared
 * PostgreSQL database (made up to date if need be).
 */
export async function openAdminAccounts(config: Config, log: Logger, cleanups: Cleanups): Promise<Accounts> {
  if (config.backends.kind === 'shared') {
    const { openSharedAccounts } = await import('./shared.js');
    return openSharedAccounts(config.backends.database, accountsOptions(config), log, cleanups);
  }
  const stores = openExistingStores(config.dataDir, process.cwd());
  cleanups.add('database (SQLite)', () => stores.close());
  return composeAccounts(stores, accountsOptions(config));
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
  return copyIntoSharedAccounts(config.backends.database, fromDataDir, log, cleanups);
}
