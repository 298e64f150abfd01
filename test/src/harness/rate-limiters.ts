// The server's rate limiter over its embedded store (SQLite in a temp folder) and over Redis (the
// machine's, under a key prefix of its own), with `users` users to limit, for the bench's figure of
// one decision's latency. close() removes what it made.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores, RateLimiter, RedisRateEvents } from '@pdn/server';
import { Redis } from 'ioredis';

export interface LimiterUnderTest {
  name: string;
  limiter: RateLimiter;
  userIds: number[];
  /**
   * Redis only: its own count of script runs and the microseconds they took, so far (INFO
   * commandstats, evalsha): what a decision costs inside Redis, whatever the client's machine is doing.
   */
  scriptTime?(): Promise<{ calls: number; usec: number }>;
  close(): Promise<void>;
}

export async function sqliteLimiter(users: number): Promise<LimiterUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-bench-limits-'));
  const stores = openSqliteStores(dir);
  const userIds = [];
  for (let i = 0; i < users; i += 1)
    userIds.push((await stores.users.ensure(`user-${i}`, 'premium')).user.id);
  return {
    name: 'SQLite',
    limiter: new RateLimiter(stores.rateEvents, Date.now),
    userIds,
    async close() {
      await stores.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function redisLimiter(users: number, url: string): Promise<LimiterUnderTest> {
  const redis = new Redis(url);
  const prefix = `pdn-bench-${randomBytes(6).toString('hex')}:`;
  return {
    name: 'Redis',
    limiter: new RateLimiter(new RedisRateEvents(redis, prefix), Date.now),
    userIds: Array.from({ length: users }, (_, i) => i + 1),
    async scriptTime() {
      const stats = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(await redis.info('commandstats'));
      return { calls: Number(stats?.[1] ?? 0), usec: Number(stats?.[2] ?? 0) };
    },
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
