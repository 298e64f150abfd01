// The SQLite backend against every store contract, on a fresh database file per test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { deliveryStoreContract } from '../../webhooks/delivery-store.contract.js';
import { webhookSecretsContract } from '../../webhooks/webhook-secrets.contract.js';
import type { Backend } from '../contract-harness.js';
import { openSqliteStores } from './index.js';

let dir = '';
const sqlite: Backend = {
  name: 'SQLite',
  async open(now) {
    dir = mkdtempSync(join(tmpdir(), 'pdn-accounts-'));
    return openSqliteStores(dir, now);
  },
  async openAgain(now) {
    return openSqliteStores(dir, now);
  },
  async dispose() {
    rmSync(dir, { recursive: true, force: true });
  },
};

usersContract(sqlite);
apiKeysContract(sqlite);
rateLimiterContract(sqlite);
sessionsContract(sqlite);
throttleContract(sqlite);
signInLinksContract(sqlite);
deviceLoginsContract(sqlite);
jobStoreContract(sqlite);
idempotencyStoreContract(sqlite);
webhookSecretsContract(sqlite);
deliveryStoreContract(sqlite);
serverAddressContract(sqlite);
outputRowsContract(sqlite);
