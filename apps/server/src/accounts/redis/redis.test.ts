// Rate limits in Redis against the rate-limiter contract. The contract also makes users,
// so the other stores are SQLite's, in a fresh folder per test; the windows live under a key prefix
// of this test's own on the machine's Redis (test-services.ts), deleted afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import type { Backend } from '../../database/contract-harness.js';
import { openSqliteStores } from '../../database/sqlite/index.js';
import { missingService, TEST_REDIS_URL, uniqueName } from '../../test-services.js';
import { rateLimiterContract } from '../rate-limiter.contract.js';
import { RedisRateEvents } from './redis-rate-events.js';

const missing = await missingService('Redis');

let dir = '';
let prefix = '';
const clients: Redis[] = [];

async function withRedisLimits(now: () => number) {
  const redis = new Redis(TEST_REDIS_URL);
  clients.push(redis);
  return { ...openSqliteStores(dir, now), rateEvents: new RedisRateEvents(redis, prefix) };
}

const redis: Backend = {
  name: 'Redis',
  async open(now) {
    dir = mkdtempSync(join(tmpdir(), 'pdn-redis-limits-'));
    prefix = `${uniqueName('pdn-test')}:`;
    return withRedisLimits(now);
  },
  openAgain: withRedisLimits,
  async dispose() {
    const [first] = clients;
    if (first) {
      const keys = await first.keys(`${prefix}*`);
      if (keys.length > 0) await first.del(...keys);
    }
    for (const client of clients.splice(0)) client.disconnect();
    rmSync(dir, { recursive: true, force: true });
  },
};

describe.skipIf(missing !== undefined)('Redis rate limits', () => {
  rateLimiterContract(redis);
});
