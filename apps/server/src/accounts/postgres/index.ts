// The PostgreSQL backend of accounts/ (issue #15): every store over a pool the caller owns and closes
// (the composition module, backends/; or a test). Loaded only when PDN_DATABASE_URL is set (STYLE.md
// 20): nothing outside backends/ and the admin copy command imports this folder.
import type { Pool } from 'pg';
import type { AccountStores } from '../index.js';
import { migrate } from './migrations.js';
import { PgApiKeys } from './pg-api-keys.js';
import { PgAttempts } from './pg-attempts.js';
import { PgDb } from './pg-db.js';
import { PgDeliveries } from './pg-deliveries.js';
import { PgIdempotency } from './pg-idempotency.js';
import { PgJobs } from './pg-jobs.js';
import { PgRateEvents } from './pg-rate-events.js';
import { PgSessions } from './pg-sessions.js';
import { PgSignInLinks } from './pg-sign-in-links.js';
import { PgUsers } from './pg-users.js';
import { PgWebhookSecrets } from './pg-webhook-secrets.js';

/** Brings the schema up to date, then the stores; close() leaves the pool to its owner. */
export async function openPostgresStores(pool: Pool, now: () => number = Date.now): Promise<AccountStores> {
  const db = new PgDb(pool);
  await migrate(db);
  return {
    users: new PgUsers(db, now),
    keys: new PgApiKeys(db, now),
    sessions: new PgSessions(db),
    attempts: new PgAttempts(db),
    signInLinks: new PgSignInLinks(db),
    rateEvents: new PgRateEvents(db),
    jobs: new PgJobs(db),
    idempotency: new PgIdempotency(db),
    webhookSecrets: new PgWebhookSecrets(db),
    deliveries: new PgDeliveries(db),
    close: async () => {},
  };
}
