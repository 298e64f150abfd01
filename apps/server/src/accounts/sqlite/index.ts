// The SQLite backend of accounts/ (the embedded default): every store over one database file in the
// data folder, shared by the running server and the admin commands.
import { type AccountStores, type Accounts, type AccountsOptions, composeAccounts } from '../index.js';
import { openDatabase } from './database.js';
import { SqliteApiKeys } from './sqlite-api-keys.js';
import { SqliteAttempts } from './sqlite-attempts.js';
import { SqliteDeliveries } from './sqlite-deliveries.js';
import { SqliteIdempotency } from './sqlite-idempotency.js';
import { SqliteJobs } from './sqlite-jobs.js';
import { SqliteRateEvents } from './sqlite-rate-events.js';
import { SqliteSessions } from './sqlite-sessions.js';
import { SqliteSignInLinks } from './sqlite-sign-in-links.js';
import { SqliteUsers } from './sqlite-users.js';
import { SqliteWebhookSecrets } from './sqlite-webhook-secrets.js';

export { hasDatabase } from './database.js';

/** The stores alone, over `<dataDir>/pdn.sqlite` (the contract suites compose them themselves). */
export function openSqliteStores(dataDir: string, now: () => number = Date.now): AccountStores {
  const db = openDatabase(dataDir);
  return {
    users: new SqliteUsers(db, now),
    keys: new SqliteApiKeys(db, now),
    sessions: new SqliteSessions(db),
    attempts: new SqliteAttempts(db),
    signInLinks: new SqliteSignInLinks(db),
    rateEvents: new SqliteRateEvents(db),
    jobs: new SqliteJobs(db),
    idempotency: new SqliteIdempotency(db),
    webhookSecrets: new SqliteWebhookSecrets(db),
    deliveries: new SqliteDeliveries(db),
    close: async () => {
      db.close();
    },
  };
}

export function openSqliteAccounts(dataDir: string, options: AccountsOptions = {}): Accounts {
  return composeAccounts(openSqliteStores(dataDir, options.now), options);
}
