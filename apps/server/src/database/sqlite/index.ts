// The SQLite database backend (the embedded default): every store over one database file in the data
// folder, shared by the running server and the admin commands.
import { SqliteApiKeys } from '../../accounts/sqlite/sqlite-api-keys.js';
import { SqliteAttempts } from '../../accounts/sqlite/sqlite-attempts.js';
import { SqliteDeviceLogins } from '../../accounts/sqlite/sqlite-device-logins.js';
import { SqliteKnownAddresses } from '../../accounts/sqlite/sqlite-known-addresses.js';
import { SqliteRateEvents } from '../../accounts/sqlite/sqlite-rate-events.js';
import { SqliteSessions } from '../../accounts/sqlite/sqlite-sessions.js';
import { SqliteSignInLinks } from '../../accounts/sqlite/sqlite-sign-in-links.js';
import { SqliteUsers } from '../../accounts/sqlite/sqlite-users.js';
import { SqliteIdempotencyStore } from '../../idempotency/sqlite-idempotency-store.js';
import { SqliteJobStore } from '../../jobs/sqlite-job-store.js';
import { SqliteServerAddressStore } from '../../server-address/sqlite-server-address-store.js';
import { SqliteOutputRows } from '../../storage/sqlite-output-rows.js';
import { SqliteDeliveryStore } from '../../webhooks/sqlite-delivery-store.js';
import { SqliteWebhookSecrets } from '../../webhooks/sqlite-webhook-secrets.js';
import type { Stores } from '../stores.js';
import { openDatabase } from './sqlite-database.js';

export { hasDatabase } from './sqlite-database.js';

/** Every store over `<dataDir>/pdn.sqlite`, made and brought up to date if need be. */
export function openSqliteStores(dataDir: string, now: () => number = Date.now): Stores {
  const db = openDatabase(dataDir);
  return {
    users: new SqliteUsers(db, now),
    keys: new SqliteApiKeys(db, now),
    sessions: new SqliteSessions(db),
    attempts: new SqliteAttempts(db),
    knownAddresses: new SqliteKnownAddresses(db),
    signInLinks: new SqliteSignInLinks(db),
    deviceLogins: new SqliteDeviceLogins(db),
    rateEvents: new SqliteRateEvents(db),
    jobs: new SqliteJobStore(db),
    idempotency: new SqliteIdempotencyStore(db),
    webhookSecrets: new SqliteWebhookSecrets(db),
    deliveries: new SqliteDeliveryStore(db),
    serverAddress: new SqliteServerAddressStore(db),
    outputRows: new SqliteOutputRows(db),
    close: async () => {
      db.close();
    },
  };
}
