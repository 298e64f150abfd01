// The PostgreSQL database backend: every store over a pool the caller owns and closes (the composition
// module, backends/; or a test). Loaded only when PDN_DATABASE_URL is set (STYLE.md 20): nothing
// outside backends/ and the admin copy command imports this folder.
import type { Pool } from 'pg';
import { PgApiKeys } from '../../accounts/postgres/pg-api-keys.js';
import { PgAttempts } from '../../accounts/postgres/pg-attempts.js';
import { PgDeviceLogins } from '../../accounts/postgres/pg-device-logins.js';
import { PgKnownAddresses } from '../../accounts/postgres/pg-known-addresses.js';
import { PgRateEvents } from '../../accounts/postgres/pg-rate-events.js';
import { PgSessions } from '../../accounts/postgres/pg-sessions.js';
import { PgSignInLinks } from '../../accounts/postgres/pg-sign-in-links.js';
import { PgUsers } from '../../accounts/postgres/pg-users.js';
import { PgIdempotencyStore } from '../../idempotency/pg-idempotency-store.js';
import { PgJobStore } from '../../jobs/pg-job-store.js';
import { PgServerAddressStore } from '../../server-address/pg-server-address-store.js';
import { PgOutputRows } from '../../storage/pg-output-rows.js';
import { PgDeliveryStore } from '../../webhooks/pg-delivery-store.js';
import { PgWebhookSecrets } from '../../webhooks/pg-webhook-secrets.js';
import type { Stores } from '../stores.js';
import { PgDb } from './pg-db.js';
import { migrate } from './pg-migrations.js';

/**
 * Brings the schema up to date, then the stores; close() leaves the pool to its owner.
 * `preparedStatements`: PgDb's.
 */
export async function openPostgresStores(
  pool: Pool,
  now: () => number = Date.now,
  preparedStatements = true,
): Promise<Stores> {
  const db = new PgDb(pool, preparedStatements);
  await migrate(db);
  return {
    users: new PgUsers(db, now),
    keys: new PgApiKeys(db, now),
    sessions: new PgSessions(db),
    attempts: new PgAttempts(db),
    knownAddresses: new PgKnownAddresses(db),
    signInLinks: new PgSignInLinks(db),
    deviceLogins: new PgDeviceLogins(db),
    rateEvents: new PgRateEvents(db),
    jobs: new PgJobStore(db),
    idempotency: new PgIdempotencyStore(db),
    webhookSecrets: new PgWebhookSecrets(db),
    deliveries: new PgDeliveryStore(db),
    serverAddress: new PgServerAddressStore(db),
    outputRows: new PgOutputRows(db),
    close: async () => {},
  };
}
