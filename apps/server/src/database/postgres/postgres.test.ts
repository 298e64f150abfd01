// The PostgreSQL backend against every store contract, each test in a schema of its own on the
// machine's PostgreSQL (test-services.ts), dropped afterwards: parallel runs never meet.
import pg from 'pg';
import { describe } from 'vitest';
import { apiKeysContract } from '../../accounts/api-keys.contract.js';
import { deviceLoginsContract } from '../../accounts/device-logins.contract.js';
import { rateLimiterContract } from '../../accounts/rate-limiter.contract.js';
import { sessionsContract } from '../../accounts/sessions.contract.js';
import { signInLinksContract } from '../../accounts/sign-in-links.contract.js';
import { throttleContract } from '../../accounts/throttle.contract.js';
import { usersContract } from '../../accounts/users.contract.js';
import { idempotencyStoreContract } from '../../idempotency/idempotency-store.contract.js';
import { jobStoreContract } from '../../jobs/job-store.contract.js';
import { serverAddressContract } from '../../server-address/server-address.contract.js';
import { outputRowsContract } from '../../storage/output-rows.contract.js';
import { missingService, TEST_DATABASE_URL, uniqueName } from '../../test-services.js';
import { deliveryStoreContract } from '../../webhooks/delivery-store.contract.js';
import { webhookSecretsContract } from '../../webhooks/webhook-secrets.contract.js';
import type { Backend } from '../contract-harness.js';
import { openPostgresStores } from './index.js';

const missing = await missingService('PostgreSQL');

let schema = '';
const pools: pg.Pool[] = [];
const poolOnSchema = () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  pools.push(pool);
  return pool;
};

const postgres: Backend = {
  name: 'PostgreSQL',
  async open(now) {
    schema = uniqueName('pdn_test');
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    return openPostgresStores(poolOnSchema(), now);
  },
  async openAgain(now) {
    return openPostgresStores(poolOnSchema(), now);
  },
  async dispose() {
    for (const pool of pools.splice(0)) await pool.end();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  },
};

describe.skipIf(missing !== undefined)('PostgreSQL accounts', () => {
  usersContract(postgres);
  apiKeysContract(postgres);
  rateLimiterContract(postgres);
  sessionsContract(postgres);
  throttleContract(postgres);
  signInLinksContract(postgres);
  deviceLoginsContract(postgres);
  jobStoreContract(postgres);
  idempotencyStoreContract(postgres);
  webhookSecretsContract(postgres);
  deliveryStoreContract(postgres);
  serverAddressContract(postgres);
  outputRowsContract(postgres);
});
